/* SPDX-License-Identifier: MIT */
/*
 * cyclock on the Arm MPS2 AN385 (Cortex-M3), as the kernel's sched_clock
 * runs on a board with a 32-bit timer.
 *
 * TIMER0 runs free from 0xffffffff down at 25 MHz and is the clock's
 * 32-bit source; it wraps every 171.8 s.  TIMER1 interrupts at a quarter
 * of cyclock_wrap_ns(), and every fourth of its interrupts calls
 * cyclock_update(), as the kernel's hrtimer does once per wrap interval.
 * The main loop sleeps, and at each interrupt (TIMER1's, and TIMER0's own
 * at every wrap) reads the clock, between two reads of the counter.
 *
 * It checks what the test checks again from the printed lines: the clock
 * never goes backwards, and the ns it gives are exactly the counts the
 * timer made since registration times 40 ns (25 MHz is 40 ns a count, so
 * there is no rounding), counted across the wraps by the samples
 * themselves.  Built with CYCLOCK_FW_SKIP_UPDATE it never updates, and
 * must fail: that is how the test knows it can.
 */
#include <cyclock/core.h>

#include "board.h"
#include "semihost.h"

/* The run lasts this many wraps of TIMER0, about 172 s of board time each. */
#ifndef FW_RUN_WRAPS
#define FW_RUN_WRAPS 5
#endif

/* TIMER1 interrupts per update: the clock is also read 1/4, 2/4, 3/4 of
 * the way through each wrap interval, far from its epoch. */
#define TICKS_PER_UPDATE 4

/* Reads per sample, back to back, each compared with the one before. */
#define BURST 64

/* How long the first measurement of TIMER0 against the host clock lasts. */
#ifndef FW_CALIBRATE_COUNTS
#define FW_CALIBRATE_COUNTS AN385_PCLK_HZ /* 1 s of board time */
#endif

_Static_assert(1000000000u % AN385_PCLK_HZ == 0, "a count is a whole number of ns");
#define NS_PER_COUNT (1000000000u / AN385_PCLK_HZ)

/* VALUE counts down from 0xffffffff; its complement counts up from 0 and
 * wraps at the same moment, which is what the engine expects. */
static uint64_t timer0_read(const struct cyclock_source *src)
{
	const struct cmsdk_timer *t = src->priv;

	return (uint32_t)~t->value;
}

static const struct cyclock_source timer0_source = {
	.name = "cmsdk-timer0",
	.read = timer0_read,
	.priv = AN385_TIMER0,
	.rate_hz = AN385_PCLK_HZ,
	.bits = 32,
	.rating = 200,
};

static struct cyclock clk;
static volatile uint32_t timer0_wraps; /* TIMER0 reached 0: its count wrapped */
static volatile uint32_t timer1_ticks;
static volatile uint32_t updates;

void timer0_irq(void);
void timer1_irq(void);

void timer0_irq(void)
{
	AN385_TIMER0->intstatus = 1;
	timer0_wraps++;
}

/* The kernel's sched_clock_poll(): keep the epoch within a wrap interval. */
void timer1_irq(void)
{
	AN385_TIMER1->intstatus = 1;
	if (++timer1_ticks % TICKS_PER_UPDATE)
		return;
#ifndef CYCLOCK_FW_SKIP_UPDATE
	cyclock_update(&clk);
	updates++;
#endif
}

static uint32_t counter(void)
{
	return (uint32_t)timer0_read(&timer0_source);
}

/* Sleep until one of the counters the interrupts bump differs from @seen. */
static void sleep_until_change(const volatile uint32_t *a, uint32_t seen_a,
			       const volatile uint32_t *b, uint32_t seen_b)
{
	irq_disable();
	while (*a == seen_a && *b == seen_b) {
		wait_for_interrupt();
		irq_enable(); /* the pending interrupt runs here */
		irq_disable();
	}
	irq_enable();
}

/*
 * How fast TIMER0 counts against the host's clock (SYS_ELAPSED): 25 MHz
 * of host time if QEMU's virtual clock follows the host's, faster under
 * -icount with sleep=off, which skips the idle time.
 */
static void calibrate(void)
{
	struct line l;
	uint64_t h0, h1;
	uint32_t c0, c1, seen = timer1_ticks;

	l.len = 0;
	if (!semihost_host_ns(&h0)) {
		semihost_write("calibrate: the host has no SYS_ELAPSED\n");
		return;
	}
	c0 = counter();
	cmsdk_timer_start(AN385_TIMER1, FW_CALIBRATE_COUNTS - 1);
	sleep_until_change(&timer1_ticks, seen, &timer1_ticks, seen);
	c1 = counter();
	semihost_host_ns(&h1);
	AN385_TIMER1->ctrl = 0;
	line_str(&l, "calibrate counts ");
	line_u64(&l, c1 - c0);
	line_str(&l, " host_ns ");
	line_u64(&l, h1 - h0);
	line_str(&l, " hz_of_host_time ");
	line_u64(&l, h1 > h0 ? (uint64_t)(c1 - c0) * 1000000000u / (h1 - h0) : 0);
	line_print(&l);
}

/* What the samples saw; counts are extended past the counter's wraps. */
struct check {
	uint32_t start_cyc;  /* the counter just before cyclock_register() */
	uint32_t last_cyc;   /* the counter at the last sample */
	uint64_t counts;     /* counts from start_cyc to last_cyc */
	uint32_t reg_counts; /* counts between the reads around cyclock_register() */
	uint64_t last_ns;
	uint32_t samples, reads, backwards, mismatches;
};

/* Counts since start_cyc at @cyc; samples come well within a wrap. */
static uint64_t extend(struct check *c, uint32_t cyc)
{
	c->counts += (uint32_t)(cyc - c->last_cyc);
	c->last_cyc = cyc;
	return c->counts;
}

static uint64_t checked_read(struct check *c)
{
	uint64_t ns = cyclock_read(&clk);

	c->reads++;
	if (ns < c->last_ns)
		c->backwards++;
	c->last_ns = ns;
	return ns;
}

/*
 * One sample: the clock read between two counter reads.  The engine read
 * the counter at registration somewhere in reg_counts after start_cyc, and
 * at this read somewhere between @before and @after, so the clock must be
 * within [before - reg_counts, after] counts, times 40 ns.
 */
static void sample(struct check *c, const char *why)
{
	struct line l;
	uint32_t before = counter(), after, i;
	uint64_t ns = checked_read(c), lo, hi;

	after = counter();
	lo = extend(c, before) - c->reg_counts;
	hi = extend(c, after);
	for (i = 1; i < BURST; i++)
		checked_read(c);
	if (ns < lo * NS_PER_COUNT || ns > hi * NS_PER_COUNT)
		c->mismatches++;
	c->samples++;
	l.len = 0;
	line_str(&l, "sample ");
	line_u64(&l, c->samples);
	line_str(&l, " ");
	line_str(&l, why);
	line_str(&l, " counts ");
	line_u64(&l, lo);
	line_str(&l, " ");
	line_u64(&l, hi);
	line_str(&l, " ns ");
	line_u64(&l, ns);
	line_print(&l);
}

/* Register TIMER0 and start TIMER1 at a quarter of the wrap interval. */
static void start_clock(struct check *c)
{
	struct line l;
	char summary[128];
	uint64_t period;

	c->start_cyc = c->last_cyc = counter();
	cyclock_register(&clk, &timer0_source);
	c->reg_counts = counter() - c->start_cyc;
	period = cyclock_wrap_ns(&clk) / TICKS_PER_UPDATE / NS_PER_COUNT;
	timer1_ticks = 0; /* TIMER1 is stopped since calibrate() */
	cmsdk_timer_start(AN385_TIMER1, (uint32_t)period - 1);
	cyclock_format_summary(&clk, summary, sizeof(summary));
	l.len = 0;
	line_str(&l, "clock ");
	line_str(&l, timer0_source.name);
	line_str(&l, ": ");
	line_str(&l, summary);
	line_str(&l, "; TIMER1 every ");
	line_u64(&l, period);
	line_str(&l, " counts");
	line_print(&l);
}

/* Sample at every interrupt until a TIMER1 tick after the last wrap. */
static void run(struct check *c)
{
	uint32_t seen_ticks = timer1_ticks, seen_wraps = timer0_wraps;

	for (;;) {
		sleep_until_change(&timer1_ticks, seen_ticks, &timer0_wraps, seen_wraps);
		if (timer0_wraps != seen_wraps) {
			seen_wraps = timer0_wraps;
			sample(c, "wrap");
		}
		if (timer1_ticks != seen_ticks) {
			seen_ticks = timer1_ticks;
			sample(c, seen_ticks % TICKS_PER_UPDATE ? "tick" : "update");
			if (seen_wraps >= FW_RUN_WRAPS)
				return;
		}
	}
}

/* The line the test reads, and whether the run passed. */
static bool report(const struct check *c, uint64_t host_ns)
{
	struct line l;
	uint32_t counter_wraps = (uint32_t)((c->start_cyc + c->counts) >> 32);
	bool ok = c->backwards == 0 && c->mismatches == 0 && timer0_wraps >= FW_RUN_WRAPS &&
		  counter_wraps == timer0_wraps;

	l.len = 0;
	line_str(&l, "summary samples ");
	line_u64(&l, c->samples);
	line_str(&l, " reads ");
	line_u64(&l, c->reads);
	line_str(&l, " backwards ");
	line_u64(&l, c->backwards);
	line_str(&l, " mismatches ");
	line_u64(&l, c->mismatches);
	line_str(&l, " wraps ");
	line_u64(&l, timer0_wraps);
	line_str(&l, " counter_wraps ");
	line_u64(&l, counter_wraps);
	line_str(&l, " updates ");
	line_u64(&l, updates);
	line_str(&l, " host_ns ");
	line_u64(&l, host_ns);
	line_print(&l);
	semihost_write(ok ? "PASS\n" : "FAIL\n");
	return ok;
}

/* Static, not automatic: zero-initialising it on the stack may become a
 * call to memset(), which this image does not have. */
static struct check check;

int main(void)
{
	uint64_t h0 = 0, h1 = 0;

	cmsdk_timer_start(AN385_TIMER0, 0xffffffffu);
	nvic_enable(AN385_TIMER0_IRQ);
	nvic_enable(AN385_TIMER1_IRQ);
	calibrate();
	semihost_host_ns(&h0);
	start_clock(&check);
	run(&check);
	semihost_host_ns(&h1);
	return report(&check, h1 - h0) ? 0 : 1;
}
