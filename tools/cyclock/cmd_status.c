/* SPDX-License-Identifier: MIT */
/*
 * cyclock status PID...: how the clocks of running processes are doing,
 * read from outside (status_read.c): on the counter or the kernel's
 * clocks and why, the ordered read, the resyncs, anomalies and spells on
 * the kernel's clock.  As text, JSON (status_json.c; its schema
 * docs/schemas/status.schema.json) or Prometheus's text format, one
 * sample set per block with the process's pid, command and mode as
 * labels; each block's facts written by block_out.c, as cyclock info
 * writes its own, under the same names (the counts here as counters).
 *
 * Tests: tests/tool/cli/test_status.sh, test_status_forged.sh,
 * test_status_hostile.sh, test_one_name.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "block_out.h"
#include "cmd.h"
#include "status_out.h"

/* ---- the text ---- */

static void text_block(FILE *o, const struct status_of *p, const struct status_block *b)
{
	fprintf(o, "pid %d (%s): %s, cyclock %s (status version %u)\n", (int)p->pid, p->comm,
		b->object, b->library, b->version);
	block_text(o, b, "  ", (long)p->pid);
}

/* ---- Prometheus's text format ---- */

/*
 * The families of before 0.1's one vocabulary, each the same fact as a
 * family of block_out.c's under another name: still written beside them,
 * for dashboards and alerts on the old names, until 0.2.
 */
struct old_metric {
	const char *name, *type, *help;
};

#define GONE "; removed after 0.1"

static const struct old_metric old_metrics[] = {
	{ "cyclock_process_info", "gauge", "deprecated: use cyclock_library_info" GONE },
	{ "cyclock_process_trusted", "gauge", "deprecated: use cyclock_trusted" GONE },
	{ "cyclock_process_kernel_mode", "gauge", "deprecated: use cyclock_kernel_mode" GONE },
	{ "cyclock_process_resyncs_total", "counter", "deprecated: use cyclock_resyncs_total" GONE },
	{ "cyclock_process_anomalies_total", "counter",
	  "deprecated: use cyclock_anomalies_total" GONE },
	{ "cyclock_process_kernel_spells_total", "counter",
	  "deprecated: use cyclock_kernel_spells_total" GONE },
	{ "cyclock_process_rate_changes_total", "counter",
	  "deprecated: use cyclock_rate_changes_total" GONE },
	{ "cyclock_process_last_error_seconds", "gauge",
	  "deprecated: use cyclock_agreement_error_seconds{clock=\"monotonic\"}" GONE },
};

/* The old families' labels: the process's, and on the info family the
 * block's object, version, clocks, counter and ordered read. */
static void old_labels(FILE *o, const struct status_of *p, const struct status_block *b,
		       bool info)
{
	fprintf(o, "{pid=\"%d\",command=\"", (int)p->pid);
	metrics_put_label(o, p->comm);
	fprintf(o, "\",mode=\"%s\"", block_mode(b));
	if (info) {
		fputs(",object=\"", o);
		metrics_put_label(o, b->object);
		fputs("\",version=\"", o);
		metrics_put_label(o, b->library);
		fprintf(o, "\",clocks=\"%s\",counter=\"", block_clocks(b));
		metrics_put_label(o, b->setup.counter);
		fputs("\",ordered=\"", o);
		metrics_put_label(o, b->setup.ordered);
		fputc('"', o);
	}
	fputs("}", o);
}

static void write_old(FILE *o, const struct status_of *ps, size_t n)
{
	for (size_t m = 0; m < sizeof(old_metrics) / sizeof(old_metrics[0]); m++) {
		bool header = false;

		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < ps[i].n; j++) {
				const struct status_block *b = &ps[i].blocks[j];
				const struct cyclock_status_counts *c = &b->counts;
				bool counter = block_on_counter(b);
				double v[] = { 1, counter, c->kernel_mode != 0, (double)c->resyncs,
					       (double)c->anomalies, (double)c->kernel_spells,
					       (double)c->rate_changes, (double)c->last_err_ns / 1e9 };

				if (m >= 2 && !counter)
					continue; /* no counts without the counter */
				if (!header)
					fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", old_metrics[m].name,
						old_metrics[m].help, old_metrics[m].name,
						old_metrics[m].type);
				header = true;
				fputs(old_metrics[m].name, o);
				old_labels(o, &ps[i], b, m == 0);
				fprintf(o, " %.15g\n", v[m]);
			}
	}
}

/* The labels of one process's samples (pid, command, mode) and of its
 * cyclock_library_info (object). */
struct series_labels {
	char pid[16];
	const char *labels[7];
	const char *info[3];
};

/* Every block's families, block_out.c's, the counts as counters; then the
 * old ones. */
static int write_prometheus(FILE *o, const struct status_of *ps, size_t n)
{
	struct metrics_out out = { .f = o, .om = false };
	size_t total = 0, k = 0;
	struct block_series *v;
	struct series_labels *l;

	for (size_t i = 0; i < n; i++)
		total += ps[i].n;
	v = calloc(total + 1, sizeof(*v));
	l = calloc(total + 1, sizeof(*l));
	if (!v || !l) {
		free(v);
		free(l);
		tool_error("status: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ps[i].n; j++, k++) {
			const struct status_block *b = &ps[i].blocks[j];

			snprintf(l[k].pid, sizeof(l[k].pid), "%d", (int)ps[i].pid);
			memcpy(l[k].labels, (const char *[]){ "pid", l[k].pid, "command", ps[i].comm,
							      "mode", block_mode(b), NULL },
			       sizeof(l[k].labels));
			memcpy(l[k].info, (const char *[]){ "object", b->object, NULL },
			       sizeof(l[k].info));
			v[k] = (struct block_series){ b, l[k].labels, l[k].info };
		}
	block_metrics(&out, v, total, true);
	write_old(o, ps, n);
	free(v);
	free(l);
	return 0;
}

/* ---- the command line ---- */

static void usage(void)
{
	puts("usage: cyclock status [--format text|json|prometheus] [--json] PID...\n\n"
	     "How the clocks of running processes that use cyclock are doing, read from\n"
	     "outside without stopping them (process_vm_readv): the library or the\n"
	     "preload, on the counter or the kernel's clocks and why, the ordered read,\n"
	     "resyncs, anomalies and spells on the kernel's clock.  Reading another\n"
	     "user's process takes root (CAP_SYS_PTRACE), as a debugger's would.\n\n"
	     "  --format F  text (the default), json (docs/schemas/status.schema.json)\n"
	     "              or prometheus (for node_exporter's textfile collector)\n"
	     "  --json      --format json\n\n"
	     "Exit status 0 if every process was read, 1 if any could not be (each\n"
	     "says why on standard error; the others are still written).");
}

enum { OPT_FORMAT = 256, OPT_JSON };
enum status_format { ST_TEXT, ST_JSON, ST_PROMETHEUS };

/* The process ids @args[0..@n) into @pids; -1 after saying which is not one. */
static int parse_pids(char **args, size_t n, pid_t *pids)
{
	for (size_t i = 0; i < n; i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(args[i], &end, 10);
		if (errno || end == args[i] || *end || v <= 0 || v > 4194304) {
			tool_error("status: '%s' is not a process id", args[i]);
			return -1;
		}
		pids[i] = (pid_t)v;
	}
	return 0;
}

static int take_option(void *ctx, int opt, char *arg)
{
	enum status_format *fmt = ctx;

	if (opt == OPT_JSON) {
		*fmt = ST_JSON;
	} else if (!strcmp(arg, "text")) {
		*fmt = ST_TEXT;
	} else if (!strcmp(arg, "json")) {
		*fmt = ST_JSON;
	} else if (!strcmp(arg, "prometheus")) {
		*fmt = ST_PROMETHEUS;
	} else {
		tool_error("status: --format wants text, json or prometheus, not '%s'", arg);
		return -1;
	}
	return 0;
}

/* 0 with optind at the first pid, 1 after --help, -1 after a one-line error. */
static int parse_args(int argc, char **argv, enum status_format *fmt)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = tool_getopt("status", argc, argv, ":h", longopts, take_option, fmt);

	if (rc > 0)
		usage();
	if (rc)
		return rc;
	if (optind == argc) {
		tool_error("status: which process? (see 'cyclock status --help')");
		return -1;
	}
	if (*fmt == ST_JSON && !bench_json_supported) {
		tool_error("status: --format json: this cyclock was built without jansson");
		return -1;
	}
	return 0;
}

/* Each of the @n processes read in turn, the ones read into @ps, how many
 * in *@read; EXIT_FAIL if any could not be (each says why), else EXIT_OK. */
static int read_all(const pid_t *pids, size_t n, struct status_of *ps, size_t *read)
{
	int rc = EXIT_OK;

	*read = 0;
	for (size_t i = 0; i < n; i++) {
		if (status_read_apart(pids[i], &ps[*read]) != STATUS_OK) {
			tool_error("status: %s", ps[*read].why);
			rc = EXIT_FAIL;
			continue;
		}
		(*read)++;
	}
	return rc;
}

/* The @n processes read, to standard output; -1 after saying why not. */
static int write_all(enum status_format fmt, const struct status_of *ps, size_t n)
{
	int rc = 0;

	if (fmt == ST_TEXT)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < ps[i].n; j++)
				text_block(stdout, &ps[i], &ps[i].blocks[j]);
	else if (fmt == ST_PROMETHEUS)
		rc = write_prometheus(stdout, ps, n);
	else if (status_write_json(stdout, ps, n))
		rc = -1;
	if (fflush(stdout) || ferror(stdout)) {
		tool_error("status: cannot write the output");
		rc = -1;
	}
	return rc;
}

int cmd_status(int argc, char **argv)
{
	enum status_format fmt = ST_TEXT;
	struct status_of *ps;
	pid_t *pids;
	size_t n, n_read;
	int rc = parse_args(argc, argv, &fmt);

	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	n = (size_t)(argc - optind);
	ps = calloc(n, sizeof(*ps));
	pids = calloc(n, sizeof(*pids));
	if (!ps || !pids) {
		tool_error("status: out of memory");
		rc = EXIT_FAIL;
	} else if (parse_pids(argv + optind, n, pids)) {
		rc = EXIT_USAGE;
	} else {
		rc = read_all(pids, n, ps, &n_read);
		if (write_all(fmt, ps, n_read))
			rc = EXIT_FAIL;
	}
	free(ps);
	free(pids);
	return rc;
}
