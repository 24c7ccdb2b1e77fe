/* SPDX-License-Identifier: MIT */
/*
 * Reads a run back from Google Benchmark's JSON format: cyclock's own files
 * and those of any Google Benchmark program.  A benchmark is a name; its
 * samples are its "iteration" entries in repetition order, or, in a file
 * written with --benchmark_report_aggregates_only, its median aggregate.
 * Other aggregates (mean, stddev, cv, BigO, RMS) are Google Benchmark's
 * summaries of the same samples and are skipped.
 *
 * The input is untrusted (the fuzzer drives bench_parse_json()): every
 * field is checked before use, every failure is one line in @err, and the
 * run is left empty on failure so that nothing half-read is compared.
 *
 * This file loads the input and walks its top level; the steps, each in
 * a file of its own, and what they share (common.c), are declared in
 * json_read.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "json_read.h"

/*
 * jansson's allocations, watched: a malloc() that fails inside its parser
 * is reported as whatever the parser was doing (an "invalid token" its
 * lexer could not store, an error at line -1), not as out of memory, so
 * the reader records it itself.  Its allocator wraps whichever one was
 * set before (the test's failing one, say), installed again if another
 * replaced it.  The tool reads on one thread; the flag is per thread all
 * the same.
 */
static json_malloc_t inner_malloc;
static _Thread_local bool alloc_failed;

static void *watched_malloc(size_t n)
{
	void *p = inner_malloc(n);

	if (!p)
		alloc_failed = true;
	return p;
}

static void watch_allocations(void)
{
	json_malloc_t m;
	json_free_t f;

	json_get_alloc_funcs(&m, &f);
	if (m != watched_malloc) {
		inner_malloc = m;
		json_set_alloc_funcs(watched_malloc, f);
	}
	alloc_failed = false;
}

static int read_entries(struct reader *rd, struct bench_run *run)
{
	size_t n = json_array_size(rd->entries);

	if (n > (size_t)MAX_BENCHMARKS * 64)
		return bench__json_fail(rd, "more than %zu entries in \"benchmarks\"",
					(size_t)MAX_BENCHMARKS * 64);
	rd->next = calloc(n, sizeof(*rd->next));
	rd->ns = calloc(n, sizeof(*rd->ns));
	rd->rep = calloc(n, sizeof(*rd->rep));
	rd->index = json_object();
	if (!rd->next || !rd->ns || !rd->rep || !rd->index)
		return bench__json_fail(rd, BENCH__JSON_OOM);
	for (size_t i = 0; i < n; i++)
		if (bench__json_file_entry(rd, i))
			return -1;
	if (rd->ng == 0)
		return bench__json_fail(rd, "no benchmark with a time in \"benchmarks\"");
	for (size_t k = 0; k < rd->ng; k++)
		if (bench__json_add_group(rd, run, &rd->g[k]))
			return -1;
	return 0;
}

static int read_root(struct reader *rd, json_t *root, struct bench_run *run)
{
	json_t *ctx = json_object_get(root, "context");

	if (!json_is_object(root))
		return bench__json_fail(rd, "not a benchmark file: the top level is not an object");
	rd->entries = json_object_get(root, "benchmarks");
	if (!json_is_array(rd->entries))
		return bench__json_fail(rd, "no \"benchmarks\" array");
	if (json_array_size(rd->entries) == 0)
		return bench__json_fail(rd, "the \"benchmarks\" array is empty");
	if (ctx && !json_is_object(ctx))
		return bench__json_fail(rd, "\"context\" is not an object");
	if (read_entries(rd, run))
		return -1;
	if (ctx)
		bench__json_read_context(&run->ctx, ctx);
	return 0;
}

int bench_parse_json(const char *buf, size_t len, struct bench_run *run, char *err,
		     size_t errlen)
{
	char own[8];
	struct reader rd = { .err = errlen ? err : own, .errlen = errlen ? errlen : sizeof(own) };
	json_error_t je;
	json_t *root;
	int ret;

	rd.err[0] = '\0';
	watch_allocations();
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root && (alloc_failed || json_error_code(&je) == json_error_out_of_memory))
		return bench__json_fail(&rd, BENCH__JSON_OOM);
	if (!root)
		return bench__json_fail(&rd, "not JSON: line %d column %d: %s", je.line, je.column,
					je.text[0] ? je.text : "(no reason given)");
	ret = read_root(&rd, root, run);
	for (size_t k = 0; k < rd.ng; k++)
		free(rd.g[k].key);
	free(rd.g);
	free(rd.next);
	free(rd.ns);
	free(rd.rep);
	json_decref(rd.index);
	json_decref(root);
	/* Whatever a step made of a failed allocation, it was one. */
	if (ret && alloc_failed)
		bench__json_fail(&rd, BENCH__JSON_OOM);
	if (ret)
		bench_run_free(run);
	return ret;
}

/* All of @fd, up to MAX_FILE_BYTES; NULL with errno set (EFBIG: more). */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r = -1;

	while (buf) {
		if (n == cap) {
			/* One byte beyond the limit tells a file at it from one above. */
			if (cap > (size_t)MAX_FILE_BYTES) {
				errno = EFBIG;
				break;
			}
			cap *= 2;
			if (cap > (size_t)MAX_FILE_BYTES)
				cap = (size_t)MAX_FILE_BYTES + 1;
			p = realloc(buf, cap);
			if (!p)
				break;
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (buf && r == 0) {
		*len = n;
		return buf;
	}
	free(buf);
	return NULL;
}

int bench_read_json(const char *path, struct bench_run *run, char *err, size_t errlen)
{
	bool in = strcmp(path, "-") == 0;
	const char *shown = in ? "stdin" : path;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL, msg[256];
	size_t len = 0;
	struct stat st;
	int ret = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if (fd >= 0 && S_ISREG(st.st_mode) && st.st_size > MAX_FILE_BYTES)
		errno = EFBIG; /* said before a byte is read; a pipe is read with the cap */
	else if (fd >= 0)
		buf = slurp(fd, &len);
	if (!buf && errno == EFBIG)
		snprintf(err, errlen, "%s: larger than %ld MiB, the most a run file may be",
			 shown, MAX_FILE_BYTES >> 20);
	else if (!buf && errno == ENOMEM)
		snprintf(err, errlen, "out of memory reading %s", shown);
	else if (!buf)
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
	else if ((ret = bench_parse_json(buf, len, run, msg, sizeof(msg))) &&
		 !strcmp(msg, BENCH__JSON_OOM))
		snprintf(err, errlen, "out of memory reading %s", shown);
	else if (ret)
		snprintf(err, errlen, "%s: %s", shown, msg);
	if (fd > STDIN_FILENO)
		close(fd);
	free(buf);
	return ret;
}
