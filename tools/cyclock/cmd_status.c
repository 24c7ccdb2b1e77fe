/* SPDX-License-Identifier: MIT */
/*
 * cyclock status PID...: how the clocks of running processes are doing,
 * read from outside (status_read.c): on the counter or the kernel's
 * clocks and why, the ordered read, the resyncs, anomalies and spells on
 * the kernel's clock.  As text, JSON (status_json.c; its schema
 * docs/schemas/status.schema.json) or Prometheus's text format, one
 * sample set per process with its pid and command as labels.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cmd.h"
#include "info.h"
#include "status_out.h"

/* ---- the text ---- */

static void text_preload(FILE *o, const struct cyclock_status_setup *s)
{
	char served[128];

	status_served(s->served, served, sizeof(served));
	fprintf(o, "  preload       %s%s\n", served[0] ? "serves " : "serves no clock",
		served[0] ? served : "");
	if (served[0])
		fprintf(o, "                from the %s read\n",
			s->flags & CYCLOCK_STATUS_RELAXED ? "unordered (relaxed)" : "ordered");
}

/* The setup of a process whose clocks are initialised. */
static void text_clocks(FILE *o, const struct cyclock_status_setup *s,
			const struct cyclock_status_counts *c)
{
	if (s->flags & CYCLOCK_STATUS_COUNTER) {
		fprintf(o, "  clocks        on the counter: %s, %.6f MHz (first: %s, %.6f MHz)%s\n",
			s->counter, (c->ns_per_tick > 0 ? 1e3 / c->ns_per_tick : s->hz_hint / 1e6), s->hz_source,
			s->hz_hint / 1e6, s->flags & CYCLOCK_STATUS_FORCED ? ", forced" : "");
		fprintf(o, "  ordered read  %s: %s\n", s->ordered, s->ordered_why);
	} else {
		fprintf(o, "  clocks        the kernel's: %s\n", s->why[0] ? s->why : "(no reason)");
	}
	if (s->distrust[0] && (s->flags & CYCLOCK_STATUS_COUNTER))
		fprintf(o, "  distrust      %s\n", s->distrust);
	if (s->flags & CYCLOCK_STATUS_PERCPU)
		fprintf(o, "  local         per CPU: the CPUs' counters are not in step\n");
	fprintf(o, "  init          took %.2f ms\n", (double)s->init_ns / 1e6);
}

/* The counts of a process on the counter (there are none without it). */
static void text_counts(FILE *o, const struct status_of *p, const struct cyclock_status_counts *c)
{
	if (c->flags & CYCLOCK_STATUS_LOST)
		fprintf(o, "  counts        lost: a fork cut their write in the parent\n");
	if (!c->written_ns) {
		fprintf(o, "  counts        none yet\n");
		return;
	}
	fprintf(o, "  now           %s\n",
		c->kernel_mode ? "on the kernel's clock (kernel mode)" : "on the counter");
	fprintf(o, "  counts        %llu resyncs, %llu anomalies, %llu spells on the kernel's "
		"clock%s%s%s, %llu rate changes followed\n",
		(unsigned long long)c->resyncs, (unsigned long long)c->anomalies,
		(unsigned long long)c->kernel_spells, c->kernel_why[0] ? " (last: " : "",
		c->kernel_why, c->kernel_why[0] ? ")" : "", (unsigned long long)c->rate_changes);
	fprintf(o, "  last resync   %.3f s ago%s, error %+lld ns, interval %.1f ms\n",
		status_age_s(c), c->pid != (uint32_t)p->pid ? " (by its parent, before fork)" : "",
		(long long)c->last_err_ns, (double)c->interval_ns / 1e6);
}

static void text_block(FILE *o, const struct status_of *p, const struct status_block *b)
{
	const struct cyclock_status *st = &b->st;
	const struct cyclock_status_setup *s = &st->setup;

	fprintf(o, "pid %d (%s): %s, cyclock %s (status version %u)\n", (int)p->pid, p->comm,
		b->object, st->library, st->version);
	if (s->flags & CYCLOCK_STATUS_PRELOAD)
		text_preload(o, s);
	if (s->flags & CYCLOCK_STATUS_LOST)
		fprintf(o, "  setup         lost: a fork cut its write in the parent\n");
	if (s->state != CYCLOCK_STATUS_READY) {
		fprintf(o, "  clocks        the kernel's so far: not initialised yet (its reads "
			"initialise it lazily)\n");
		return;
	}
	text_clocks(o, s, &st->counts);
	if (s->flags & CYCLOCK_STATUS_COUNTER)
		text_counts(o, p, &st->counts);
}

/* ---- Prometheus's text format ---- */

struct metric {
	const char *name, *type, *help;
};

static const struct metric metrics[] = {
	{ "cyclock_process_info", "gauge",
	  "A process's cyclock: its library or preload, version, counter, ordered read (value 1)." },
	{ "cyclock_process_trusted", "gauge",
	  "1 if the process's clocks run on the counter, 0 on the kernel's clocks." },
	{ "cyclock_process_kernel_mode", "gauge",
	  "1 if CLOCK_MONOTONIC is served from the kernel's clock now (a spell)." },
	{ "cyclock_process_resyncs_total", "counter",
	  "Resyncs of the process's CLOCK_MONOTONIC timeline." },
	{ "cyclock_process_anomalies_total", "counter",
	  "Times the counter disagreed with the kernel in the process." },
	{ "cyclock_process_kernel_spells_total", "counter",
	  "Spells on the kernel's clock in the process, both timelines." },
	{ "cyclock_process_rate_changes_total", "counter",
	  "Changes of the kernel's rate the process followed on the counter." },
	{ "cyclock_process_last_error_seconds", "gauge",
	  "cyclock_now() minus CLOCK_MONOTONIC at the process's last resync." },
};

static void labels(FILE *o, const struct status_of *p, const struct status_block *b, bool info)
{
	fprintf(o, "{pid=\"%d\",command=\"", (int)p->pid);
	metrics_put_label(o, p->comm);
	fprintf(o, "\",mode=\"%s\"", status_mode(&b->st));
	if (info) {
		fputs(",object=\"", o);
		metrics_put_label(o, b->object);
		fputs("\",version=\"", o);
		metrics_put_label(o, b->st.library);
		fprintf(o, "\",clocks=\"%s\",counter=\"", status_clocks(&b->st));
		metrics_put_label(o, b->st.setup.counter);
		fputs("\",ordered=\"", o);
		metrics_put_label(o, b->st.setup.ordered);
		fputc('"', o);
	}
	fputs("}", o);
}

static void write_prometheus(FILE *o, const struct status_of *ps, size_t n)
{
	for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		bool header = false;

		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < ps[i].n; j++) {
				const struct status_block *b = &ps[i].blocks[j];
				const struct cyclock_status_counts *c = &b->st.counts;
				bool counter = b->st.setup.flags & CYCLOCK_STATUS_COUNTER;
				double v[] = { 1, counter, c->kernel_mode != 0, (double)c->resyncs,
					       (double)c->anomalies, (double)c->kernel_spells,
					       (double)c->rate_changes, (double)c->last_err_ns / 1e9 };

				if (m >= 2 && !counter)
					continue; /* no counts without the counter */
				if (!header) {
					fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", metrics[m].name,
						metrics[m].help, metrics[m].name, metrics[m].type);
					header = true;
				}
				fputs(metrics[m].name, o);
				labels(o, &ps[i], b, m == 0);
				fprintf(o, " %.15g\n", v[m]);
			}
	}
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
		write_prometheus(stdout, ps, n);
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
