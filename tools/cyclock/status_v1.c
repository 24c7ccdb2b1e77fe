/* SPDX-License-Identifier: MIT */
/*
 * Version 1 of the status block read (status_v1.h has its layout, frozen):
 * each part one copy between two equal, even readings of its sequence, as
 * version 2's view (status_read.h), the facts it lacks absent, LOST kept
 * apart.  status_read.c reads the header and calls here.
 *
 * Tests: tests/tool/cli/test_status_forged.sh (v1_text, v1_json,
 * v1_prometheus, v1_lost, v1_odd).
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "status_target.h"
#include "status_v1.h"

/* Version 1's part at @addr, @len bytes, its sequence first: read whole
 * between two equal, even readings of the sequence. */
static enum status_err read_part(pid_t pid, uint64_t addr, void *buf, size_t len,
				 const char *name, char *why, size_t wlen)
{
	uint32_t s1, s2;
	int err;

	for (int i = 0; i < STATUS_TRIES; i++) {
		if ((err = status_fetch(pid, addr, &s1, sizeof(s1))))
			return status_vm_error(pid, err, why, wlen);
		if (!(s1 & 1)) {
			if ((err = status_fetch(pid, addr, buf, len)) ||
			    (err = status_fetch(pid, addr, &s2, sizeof(s2))))
				return status_vm_error(pid, err, why, wlen);
			if (s1 == s2 && !memcmp(buf, &s2, sizeof(s2)))
				return STATUS_OK;
		}
		nanosleep(&(struct timespec){ 0, 10000 }, NULL);
	}
	return status_busy(pid, name, "was being written (a fork that cut a write leaves it so "
			   "until the next)", why, wlen);
}

/* A string array of version 1 into version 2's, cut where version 2's
 * is shorter (its end made a NUL afterwards). */
#define SAME(dst, src) memcpy((dst), (src), sizeof(dst) < sizeof(src) ? sizeof(dst) : sizeof(src))

/* Version 1's block, after its header, as version 2's view: its flags
 * but LOST (which it keeps apart), the facts it lacks zero. */
enum status_err status_read_v1(pid_t pid, uint64_t addr, struct status_block *b, char *why,
			       size_t len)
{
	struct cyclock_status_v1_setup s;
	struct cyclock_status_v1_counts c;
	enum status_err e;

	e = read_part(pid, addr + offsetof(struct cyclock_status_v1, setup), &s, sizeof(s), "setup",
		      why, len);
	if (e == STATUS_OK)
		e = read_part(pid, addr + offsetof(struct cyclock_status_v1, counts), &c, sizeof(c),
			      "counts", why, len);
	if (e != STATUS_OK)
		return e;
	b->setup = (struct cyclock_status_setup){
		.state = s.state, .flags = s.flags & (CYCLOCK_STATUS_LOST - 1),
		.served = s.served, .hz_hint = s.hz_hint, .init_ns = s.init_ns,
		.warp_cyc = s.warp_cyc,
	};
	SAME(b->setup.counter, s.counter);
	SAME(b->setup.ordered, s.ordered);
	SAME(b->setup.hz_source, s.hz_source);
	SAME(b->setup.why, s.why);
	SAME(b->setup.distrust, s.distrust);
	SAME(b->setup.ordered_why, s.ordered_why);
	b->setup_lost = s.flags & CYCLOCK_STATUS_V1_LOST;
	b->counts = (struct cyclock_status_counts){
		.pid = c.pid, .kernel_mode = c.kernel_mode, .written_ns = c.written_ns,
		.resyncs = c.resyncs, .anomalies = c.anomalies, .kernel_spells = c.kernel_spells,
		.rate_changes = c.rate_changes, .last_err_ns = c.last_err_ns,
		.interval_ns = c.interval_ns, .ns_per_tick = c.ns_per_tick,
	};
	SAME(b->counts.kernel_why, c.kernel_why);
	b->counts_lost = c.flags & CYCLOCK_STATUS_V1_LOST;
	return STATUS_OK;
}
