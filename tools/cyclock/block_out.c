/* SPDX-License-Identifier: MIT */
/*
 * A status block's words, text and metrics (block_out.h), the same for
 * cyclock status (other processes) and cyclock info (its own); its JSON
 * is block_json.c's.
 *
 * Tests: tests/tool/cli/test_status.sh (every format of either version's
 * block), test_status_hostile.sh (a forged block: no control character,
 * promtool), test_info.sh (info's own block, both metrics formats),
 * test_one_name.sh (one name per fact in both commands).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "block_out.h"
#include "preload/names.h" /* the names CYCLOCK_PRELOAD_CLOCKS takes */

/* ---- the words ---- */

void block_served(uint32_t served, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < CYCLOCK_PRELOAD_NAMES_N; i++)
		if (served & (1u << cyclock_preload_names[i].id) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 cyclock_preload_names[i].name);
}

const char *block_mode(const struct status_block *b)
{
	if (!(b->setup.flags & CYCLOCK_STATUS_PRELOAD))
		return "library";
	return b->setup.flags & CYCLOCK_STATUS_RELAXED ? "preload-relaxed" : "preload";
}

/* "counter", "kernel" (the kernel's clocks, for good or now), or
 * "not-initialised". */
const char *block_clocks(const struct status_block *b)
{
	if (b->setup.state != CYCLOCK_STATUS_READY)
		return "not-initialised";
	return b->setup.flags & CYCLOCK_STATUS_COUNTER ? "counter" : "kernel";
}

bool block_on_counter(const struct status_block *b)
{
	return b->setup.state == CYCLOCK_STATUS_READY && (b->setup.flags & CYCLOCK_STATUS_COUNTER);
}

bool block_has_counts(const struct status_block *b)
{
	return block_on_counter(b) && b->counts.written_ns;
}

double block_age_s(const struct cyclock_status_counts *c)
{
	struct timespec ts;

	if (!c->written_ns || clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	return ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)c->written_ns) / 1e9;
}

/* ---- the text ---- */

/* @indent, @label padded to column 16, the rest as @fmt says, a newline. */
__attribute__((format(printf, 4, 5))) static void line(FILE *o, const char *indent,
						       const char *label, const char *fmt, ...)
{
	int pad = 16 - (int)strlen(indent) - 1;
	va_list ap;

	fprintf(o, "%s%-*s ", indent, pad > 0 ? pad : 0, label);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
	fputc('\n', o);
}

static void text_preload(FILE *o, const char *in, const struct cyclock_status_setup *s)
{
	char served[128];

	block_served(s->served, served, sizeof(served));
	line(o, in, "preload", "%s%s", served[0] ? "serves " : "serves no clock", served);
	if (served[0])
		line(o, in, "", "from the %s read",
		     s->flags & CYCLOCK_STATUS_RELAXED ? "unordered (relaxed)" : "ordered");
}

/* The warp check, version 2: whether it ran, its turns, its largest step back. */
static void text_warp(FILE *o, const char *in, const struct status_block *b)
{
	const struct cyclock_status_setup *s = &b->setup;

	if (!status_has_v2(b))
		return;
	if (!(s->flags & CYCLOCK_STATUS_WARP_RAN))
		line(o, in, "warp check", "not run (cyclock_init(CYCLOCK_INIT_WARP_CHECK) runs it)");
	else if (s->warp_cyc < 0)
		line(o, in, "warp check", "could not run");
	else
		line(o, in, "warp check", "largest step back between CPUs %lld cycles in %llu "
		     "turns%s", (long long)s->warp_cyc, (unsigned long long)s->warp_turns,
		     s->warp_turns < 100 ? " (too few to say anything)" : "");
}

/* The setup of a process whose clocks are initialised. */
static void text_setup(FILE *o, const char *in, const struct status_block *b)
{
	const struct cyclock_status_setup *s = &b->setup;
	const struct cyclock_status_counts *c = &b->counts;
	char ppm[48] = "";

	if (block_on_counter(b)) {
		if (status_has_v2(b) && c->written_ns && isfinite(c->hz_ppm) && c->hz_ppm >= 0)
			snprintf(ppm, sizeof(ppm), " +-%.3f ppm", c->hz_ppm);
		line(o, in, "clocks", "on the counter: %s, %.6f MHz%s (first: %s, %.6f MHz)%s",
		     s->counter, c->ns_per_tick > 0 ? 1e3 / c->ns_per_tick : s->hz_hint / 1e6, ppm,
		     s->hz_source, s->hz_hint / 1e6,
		     s->flags & CYCLOCK_STATUS_FORCED ? ", forced" : "");
		line(o, in, "ordered read", "%s: %s", s->ordered, s->ordered_why);
		if (s->distrust[0])
			line(o, in, "distrust", "%s", s->distrust);
		text_warp(o, in, b);
	} else {
		line(o, in, "clocks", "the kernel's: %s", s->why[0] ? s->why : "(no reason)");
	}
	if (s->flags & CYCLOCK_STATUS_PERCPU)
		line(o, in, "local", "per CPU: the CPUs' counters are not in step");
	line(o, in, "init", "took %.2f ms", (double)s->init_ns / 1e6);
}

/* The counts of a process on the counter (there are none without it). */
static void text_counts(FILE *o, const char *in, const struct status_block *b, long pid)
{
	const struct cyclock_status_counts *c = &b->counts;
	char raw[48] = "", max[48] = "";

	if (b->counts_lost)
		line(o, in, "counts", "lost: a fork cut their write in the parent");
	if (!c->written_ns) {
		line(o, in, "counts", "none yet");
		return;
	}
	if (status_has_v2(b)) {
		snprintf(raw, sizeof(raw), " (raw %+lld ns)", (long long)c->raw_last_err_ns);
		snprintf(max, sizeof(max), " (at most %.1f ms)", (double)c->max_interval_ns / 1e6);
	}
	line(o, in, "now", "%s",
	     c->kernel_mode ? "on the kernel's clock (kernel mode)" : "on the counter");
	line(o, in, "counts", "%llu resyncs, %llu anomalies, %llu spells on the kernel's clock%s%s%s"
	     ", %llu rate changes followed",
	     (unsigned long long)c->resyncs, (unsigned long long)c->anomalies,
	     (unsigned long long)c->kernel_spells, c->kernel_why[0] ? " (last: " : "",
	     c->kernel_why, c->kernel_why[0] ? ")" : "", (unsigned long long)c->rate_changes);
	line(o, in, "last resync", "%.3f s ago%s, error %+lld ns%s, interval %.1f ms%s",
	     block_age_s(c), (long)c->pid != pid ? " (by its parent, before fork)" : "",
	     (long long)c->last_err_ns, raw, (double)c->interval_ns / 1e6, max);
}

void block_text(FILE *o, const struct status_block *b, const char *indent, long pid)
{
	const struct cyclock_status_setup *s = &b->setup;

	if (s->flags & CYCLOCK_STATUS_PRELOAD)
		text_preload(o, indent, s);
	if (b->setup_lost)
		line(o, indent, "setup", "lost: a fork cut its write in the parent");
	if (s->state != CYCLOCK_STATUS_READY) {
		line(o, indent, "clocks", "the kernel's so far: not initialised yet (its reads "
		     "initialise it lazily)");
		return;
	}
	text_setup(o, indent, b);
	if (block_on_counter(b))
		text_counts(o, indent, b, pid);
}

/* ---- the metrics ---- */

/* What a fact needs of a block to be one. */
enum need { ALL, READY, COUNTER, COUNTS, COUNTS_V2 };
enum kind { GAUGE, COUNT, INFO };

struct fact {
	const char *name;
	enum kind kind;
	const char *unit;
	enum need need;
	const char *help;
};

/* The facts, in this order (their indices below). */
enum { F_LIBRARY, F_TRUSTED, F_SOURCE, F_INIT, F_ORDERED, F_HZ_FIRST, F_HZ, F_HZ_UNC, F_KMODE,
       F_INTERVAL, F_INTERVAL_MAX, F_AGREEMENT, F_RESYNCS, F_ANOMALIES, F_SPELLS, F_RATES };

#define SINCE " since the process's initialisation."

static const struct fact facts[] = {
	{ "cyclock_library", INFO, NULL, ALL,
	  "The cyclock library of the process: its version, its status block's layout." },
	{ "cyclock_trusted", GAUGE, NULL, ALL,
	  "1 when cyclock reads the counter, 0 when it serves the kernel's clocks; "
	  "reason says why not." },
	{ "cyclock_source", INFO, NULL, READY,
	  "The counter cyclock reads, and where its frequency came from." },
	{ "cyclock_init_seconds", GAUGE, "seconds", READY,
	  "What the library's initialisation cost." },
	{ "cyclock_ordered_read", INFO, NULL, COUNTER,
	  "The ordered counter read cyclock chose on this CPU." },
	{ "cyclock_frequency_first_hertz", GAUGE, "hertz", COUNTER,
	  "The counter's frequency as first stated (CPUID, the hypervisor) or measured." },
	{ "cyclock_frequency_hertz", GAUGE, "hertz", COUNTS,
	  "The counter's frequency as the process estimates it." },
	{ "cyclock_frequency_uncertainty_ratio", GAUGE, "ratio", COUNTS_V2,
	  "The frequency estimate's uncertainty, relative (36e-6 is 36 ppm)." },
	{ "cyclock_kernel_mode", GAUGE, NULL, COUNTS,
	  "1 while CLOCK_MONOTONIC is served from the kernel's clock (a spell), else 0; "
	  "last_reason is why the last spell began." },
	{ "cyclock_resync_interval_seconds", GAUGE, "seconds", COUNTS,
	  "How often the timelines resync against the kernel's clocks now." },
	{ "cyclock_resync_interval_max_seconds", GAUGE, "seconds", COUNTS_V2,
	  "The longest the resync interval may grow to." },
	{ "cyclock_agreement_error_seconds", GAUGE, "seconds", COUNTS,
	  "cyclock's clock less the kernel's it follows, at the last resync." },
	{ "cyclock_resyncs", COUNT, NULL, COUNTS, "Resyncs of the CLOCK_MONOTONIC timeline" SINCE },
	{ "cyclock_anomalies", COUNT, NULL, COUNTS,
	  "Times the counter disagreed with the kernel" SINCE },
	{ "cyclock_kernel_spells", COUNT, NULL, COUNTS,
	  "Spells of serving the kernel's clock on a timeline" SINCE },
	{ "cyclock_rate_changes", COUNT, NULL, COUNTS,
	  "Changes of the kernel clock's rate followed on the counter" SINCE },
};

static bool has(const struct fact *f, const struct status_block *b)
{
	switch (f->need) {
	case ALL:
		return true;
	case READY:
		return b->setup.state == CYCLOCK_STATUS_READY;
	case COUNTER:
		return block_on_counter(b);
	case COUNTS:
		return block_has_counts(b);
	default:
		return block_has_counts(b) && status_has_v2(b);
	}
}

/* @v if it is one, else not a number (left out): a frequency, a ratio. */
static double positive(double v)
{
	return v >= 0 ? v : NAN;
}

/* The value of a fact of one unlabelled sample. */
static double value(size_t i, const struct status_block *b)
{
	const struct cyclock_status_counts *c = &b->counts;

	switch (i) {
	case F_INIT:
		return (double)b->setup.init_ns / 1e9;
	case F_HZ_FIRST:
		return positive(b->setup.hz_hint);
	case F_HZ:
		return c->ns_per_tick > 0 ? 1e9 / c->ns_per_tick : NAN;
	case F_HZ_UNC:
		return positive(c->hz_ppm) * 1e-6;
	case F_INTERVAL:
		return (double)c->interval_ns / 1e9;
	case F_INTERVAL_MAX:
		return (double)c->max_interval_ns / 1e9;
	case F_RESYNCS:
		return (double)c->resyncs;
	case F_ANOMALIES:
		return (double)c->anomalies;
	case F_SPELLS:
		return (double)c->kernel_spells;
	default:
		return (double)c->rate_changes;
	}
}

/* One sample of @f for @s: its labels, @extra's (or NULL), @v. */
static void put(const struct metrics_out *o, const struct fact *f, bool counters,
		const struct block_series *s, const char *const *extra, double v)
{
	const char *l[32];
	char name[96];
	size_t n = 0;

	for (size_t i = 0; s->labels && s->labels[i] && n < 28; i++)
		l[n++] = s->labels[i];
	for (size_t i = 0; f == &facts[F_LIBRARY] && s->info_labels && s->info_labels[i] && n < 28;
	     i++)
		l[n++] = s->info_labels[i];
	for (size_t i = 0; extra && extra[i] && n < 30; i++)
		l[n++] = extra[i];
	l[n] = NULL;
	snprintf(name, sizeof(name), "%s%s", f->name,
		 f->kind == INFO ? "_info" : f->kind == COUNT && counters ? "_total" : "");
	metrics_sample(o, name, l, v);
}

/* Why the clocks are the kernel's: "" on the counter. */
static const char *reason(const struct status_block *b)
{
	if (block_on_counter(b))
		return "";
	return b->setup.state == CYCLOCK_STATUS_READY ? b->setup.why : "not initialised yet";
}

/* The samples of fact @i for @s. */
static void samples(const struct metrics_out *o, size_t i, bool counters,
		    const struct block_series *s)
{
	const struct status_block *b = s->b;
	const struct cyclock_status_setup *st = &b->setup;
	const struct cyclock_status_counts *c = &b->counts;
	const struct fact *f = &facts[i];
	char ver[16];
	const char *library[] = { "version", b->library, "status_version", ver, NULL };
	const char *trusted[] = { "reason", reason(b), NULL };
	const char *source[] = { "source", st->counter, "frequency_source", st->hz_source, NULL };
	const char *ordered[] = { "read", st->ordered, NULL };
	const char *kmode[] = { "last_reason", c->kernel_why, NULL };
	const char *mono[] = { "clock", "monotonic", NULL }, *raw[] = { "clock", "monotonic_raw", NULL };

	snprintf(ver, sizeof(ver), "%u", b->version);
	if (i == F_LIBRARY)
		put(o, f, counters, s, library, 1);
	else if (i == F_TRUSTED)
		put(o, f, counters, s, trusted, block_on_counter(b));
	else if (i == F_SOURCE)
		put(o, f, counters, s, source, 1);
	else if (i == F_ORDERED)
		put(o, f, counters, s, ordered, 1);
	else if (i == F_KMODE)
		put(o, f, counters, s, kmode, c->kernel_mode != 0);
	else if (i != F_AGREEMENT)
		put(o, f, counters, s, NULL, value(i, b));
	if (i == F_AGREEMENT)
		put(o, f, counters, s, mono, (double)c->last_err_ns / 1e9);
	if (i == F_AGREEMENT && status_has_v2(b))
		put(o, f, counters, s, raw, (double)c->raw_last_err_ns / 1e9);
}

void block_metrics(const struct metrics_out *o, const struct block_series *v, size_t n,
		   bool counters)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const struct fact *f = &facts[i];
		bool header = false;

		for (size_t j = 0; j < n; j++) {
			if (!has(f, v[j].b))
				continue;
			if (!header)
				metrics_family(o, f->name,
					       f->kind == INFO ? "info"
					       : f->kind == COUNT && counters ? "counter" : "gauge",
					       f->unit, f->help);
			header = true;
			samples(o, i, counters, &v[j]);
		}
	}
}
