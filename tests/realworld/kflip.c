/* SPDX-License-Identifier: MIT */
/*
 * kflip: change the kernel's clock rate while a command runs, as the
 * kernel's skew_consistency selftest does, and put everything back after.
 *
 *   kflip [-f PPM] [-t DELTA] [-o US] [-s US] [-p MS] [-r SEED] [-d S] [-- COMMAND...]
 *
 * Every period (-p, default 500 ms; with -r, a random moment between a
 * quarter and twice that) the next change is made: -f flips ADJ_FREQUENCY
 * between +PPM and -PPM, -t flips ADJ_TICK between the saved tick - DELTA
 * and + DELTA, -o starts a PLL offset slew of +US or -US, -s an adjtime()
 * singleshot slew of +US or -US; with -r the kinds and signs are drawn at
 * random.  Runs COMMAND (its exit status is kflip's) or, without one, for
 * -d seconds (default 10).  Exit 77: adjtimex may not change the clock.
 */
#include "kadj.h"

#include <time.h>

struct plan {
	double ppm;
	long tick_delta, offset_us, single_us;
	long period_ms;
	unsigned int seed;
	bool random;
	int duration_s;
};

static unsigned int next_rand(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Change number @n: the kinds asked for, in turn or at random. */
static void change(const struct plan *p, unsigned long n, unsigned int *rs)
{
	int kinds[4], nk = 0, sign;

	if (p->ppm != 0)
		kinds[nk++] = 0;
	if (p->tick_delta)
		kinds[nk++] = 1;
	if (p->offset_us)
		kinds[nk++] = 2;
	if (p->single_us)
		kinds[nk++] = 3;
	if (!nk)
		return;
	sign = p->random ? (next_rand(rs) & 1 ? 1 : -1) : (n & 1 ? -1 : 1);
	for (int i = 0; i < nk; i++) {
		if (p->random && (next_rand(rs) & 1) && i != (int)(n % nk))
			continue;
		switch (kinds[i]) {
		case 0: kadj_freq_ppm(kadj_saved_freq() / 65536.0 + sign * p->ppm); break;
		case 1: kadj_tick(kadj_saved_tick() + sign * p->tick_delta); break;
		case 2: kadj_offset_us(sign * p->offset_us); break;
		case 3: kadj_singleshot_us(sign * p->single_us); break;
		}
	}
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int usage(void)
{
	fprintf(stderr, "usage: kflip [-f PPM] [-t DELTA] [-o US] [-s US] [-p MS] [-r SEED] "
			"[-d S] [-- COMMAND...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct plan p = { .period_ms = 500, .duration_s = 10 };
	unsigned long n = 0;
	pid_t child = -1;
	int opt, st = 0, rc;

	while ((opt = getopt(argc, argv, "+f:t:o:s:p:r:d:")) != -1) {
		switch (opt) {
		case 'f': p.ppm = atof(optarg); break;
		case 't': p.tick_delta = atol(optarg); break;
		case 'o': p.offset_us = atol(optarg); break;
		case 's': p.single_us = atol(optarg); break;
		case 'p': p.period_ms = atol(optarg); break;
		case 'r': p.random = true; p.seed = (unsigned int)atol(optarg); break;
		case 'd': p.duration_s = atoi(optarg); break;
		default: return usage();
		}
	}
	if (p.period_ms < 1 || p.ppm < 0 || p.ppm > 500 || p.tick_delta < 0 ||
	    p.tick_delta > 1000 || p.duration_s < 1)
		return usage();
	rc = kadj_begin(optind < argc ? 3600 : p.duration_s);
	if (rc)
		return rc;
	if (optind < argc) {
		child = fork();
		if (child == 0) {
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "kflip: %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
	}
	for (time_t end = time(NULL) + p.duration_s;;) {
		long ms = p.period_ms;

		if (child > 0 && waitpid(child, &st, WNOHANG) == child)
			break;
		if (child < 0 && time(NULL) >= end)
			break;
		change(&p, n++, &p.seed);
		if (p.random)
			ms = p.period_ms / 4 + (long)(next_rand(&p.seed) % (unsigned)(p.period_ms * 7 / 4 + 1));
		for (long left = ms; left > 0; left -= 10) {
			nap_ms(left < 10 ? left : 10);
			if (child > 0 && waitpid(child, &st, WNOHANG) == child)
				goto done;
		}
	}
done:
	kadj_restore();
	fprintf(stderr, "kflip: %lu changes, clock restored\n", n);
	if (child < 0)
		return 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
