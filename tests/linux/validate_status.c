/* SPDX-License-Identifier: MIT */
/*
 * Validate the status block "cyclock status" reads (cyclock/status.h,
 * src/linux/status.c) against the tool's own reader (tools/cyclock/
 * status_read.c): a writer thread writes both parts as fast as it can,
 * each write with every field derived from one number i (the counts from
 * the tracks, the setup from cyclock__setup, the strings by i's parity),
 * while a reader thread reads the block from outside, through the kernel
 * (process_vm_readv() on this process), and checks that every read part
 * is one write's: all its fields agree with one i, and i never goes back.
 * The reader first finds the block as the tool does, through
 * /proc/self/maps and this program's symbol table (libcyclock.a linked
 * statically), at the address the symbol has here.  (The setup is
 * written here after initialisation, as the library never does, to give
 * the remote reader two parts that move; validate_state.c reads the block
 * in the process, from a signal handler.)
 *
 * Usage: linux_validate_status [seconds]   (default 3); exit 77 (a skip)
 * where process_vm_readv() is not implemented (qemu-user).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "status_read.h"

static atomic_bool stop;
static atomic_ulong writes;

static const char *const why[2] = { "even: a reason of one length",
				    "odd: a reason of another, longer length than the even one" };

static void pace(uint64_t *seed)
{
	uint64_t t0 = cyclock__kernel_ns(CLOCK_MONOTONIC), wait;

	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	wait = (*seed >> 33) % 2000;
	while (cyclock__kernel_ns(CLOCK_MONOTONIC) - t0 < wait)
		;
}

static void *writer(void *arg)
{
	uint64_t seed = 1;

	(void)arg;
	/* What the status's writers read, set to i before each write; the
	 * raw track's rate 1 ns per count makes interval_ns the interval in
	 * counts. */
	cyclock__tracks.raw.state.rate = 1.0;
	cyclock__tracks.raw.state.spells = 0;
	cyclock_atomic_store(&cyclock__setup.using_counter, true, CYCLOCK_RELAXED);
	for (uint64_t i = 1; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		cyclock__tracks.mono.state.resyncs = i;
		cyclock__tracks.mono.state.spells = i;
		cyclock__tracks.mono.state.rate_changes = i;
		cyclock__tracks.mono.state.last_err = (int64_t)i;
		cyclock__tracks.mono.state.interval = i;
		cyclock__tracks.mono.state.kernel_why = why[i & 1];
		cyclock_atomic_store(&cyclock__tracks.anomalies, i, CYCLOCK_RELAXED);
		cyclock__status_counts(&cyclock__tracks.mono, i, i & 1);
		cyclock__setup.init_ns = i;
		cyclock__setup.hz_hint = (double)i;
		cyclock__setup.warp_ran = true;
		cyclock__setup.warp_cyc = (int64_t)i;
		cyclock__setup.why = why[i & 1];
		cyclock__status_setup();
		atomic_store_explicit(&writes, i, memory_order_relaxed);
		/* Up to 2 us between writes, at random: the reader's three
		 * system calls (1-2 us) fall across writes often, and between
		 * them often enough to read whole. */
		pace(&seed);
	}
	return NULL;
}

static unsigned long failures;

static void fail(const char *what, unsigned long long a, unsigned long long b)
{
	if (failures++ < 10)
		fprintf(stderr, "validate_status: %s: %llu against %llu\n", what, a, b);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	struct status_of *of = calloc(1, sizeof(*of));
	struct cyclock_status st;
	uint64_t last_counts = 0, last_setup = 0, reads = 0, busy = 0;
	struct timespec t0, t;
	pthread_t w;
	char whyread[512];

	if (!of)
		return 1;
	/* qemu-user (the cross stages) has no process_vm_readv(). */
	if (process_vm_readv(getpid(), &(struct iovec){ &st, 4 }, 1,
			     &(struct iovec){ &cyclock_status, 4 }, 1, 0) < 0 && errno == ENOSYS) {
		printf("validate_status: no process_vm_readv() here (qemu-user): skipped\n");
		return 77;
	}
	/* Found as the tool finds it: the maps, the symbol table. */
	if (status_read(getpid(), of) != STATUS_OK || of->n != 1) {
		fprintf(stderr, "validate_status: not found: %s\n", of->why);
		return 1;
	}
	if (of->blocks[0].addr != (uint64_t)(uintptr_t)&cyclock_status) {
		fail("found at another address", of->blocks[0].addr,
		     (uint64_t)(uintptr_t)&cyclock_status);
		return 1;
	}
	if (pthread_create(&w, NULL, writer, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		const struct cyclock_status_counts *c;
		const struct cyclock_status_setup *p;
		enum status_err e;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
			break;
		e = status_read_block(getpid(), of->blocks[0].addr, &st, whyread, sizeof(whyread));
		if (e == STATUS_BUSY) {
			busy++; /* too few whole reads, if always: said below */
			continue;
		}
		if (e != STATUS_OK) {
			fprintf(stderr, "validate_status: %s\n", whyread);
			return 1;
		}
		reads++;
		/* The copies the sequences named (the reader zeroed the others). */
		c = &st.counts[st.counts_seq & 1];
		p = &st.setup[st.setup_seq & 1];
		if (c->written_ns) {
			uint64_t i = c->written_ns;

			if (c->resyncs != i || c->kernel_spells != i || c->rate_changes != i ||
			    c->anomalies != i || (uint64_t)c->last_err_ns != i ||
			    c->interval_ns != i || c->ns_per_tick != 1.0 || c->kernel_mode != (i & 1))
				fail("counts torn: resyncs against written_ns", c->resyncs, i);
			if (strcmp(c->kernel_why, why[i & 1]))
				fail("counts torn: kernel_why against i", strlen(c->kernel_why), i);
			if (i < last_counts)
				fail("counts went back", i, last_counts);
			last_counts = i;
		}
		if (p->state == CYCLOCK_STATUS_READY) {
			uint64_t i = p->init_ns;

			if (p->hz_hint != (double)i || (uint64_t)p->warp_cyc != i ||
			    !(p->flags & CYCLOCK_STATUS_COUNTER))
				fail("setup torn: hz_hint against init_ns", (uint64_t)p->hz_hint, i);
			if (strcmp(p->why, why[i & 1]))
				fail("setup torn: why against i", strlen(p->why), i);
			if (i < last_setup)
				fail("setup went back", i, last_setup);
			last_setup = i;
		}
	}
	atomic_store(&stop, true);
	pthread_join(w, NULL);
	printf("validate_status: %llu whole reads (%llu busy) of %lu writes, %lu torn or back\n",
	       (unsigned long long)reads, (unsigned long long)busy, atomic_load(&writes), failures);
	if (reads < 100 || last_counts == 0 || last_setup == 0) {
		fprintf(stderr, "validate_status: too few whole reads to say anything\n");
		return 1;
	}
	free(of);
	return failures ? 1 : 0;
}
