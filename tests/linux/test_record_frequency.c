/* SPDX-License-Identifier: MIT */
/*
 * A record of the machine forged by the user it is of, with a valid
 * checksum, stating a frequency in range but wrong: half the counter's,
 * through the hypervisor's CPUID leaf 0x40000010 (kHz).  Nothing in the
 * record can tell it from the truth; what can is the frequency measured
 * since initialisation's first sample, against which src/linux/init.c is
 * to check any stated one (issue 38).  Until it does, this test fails: the
 * old code, and a record.c that checks only the range, served clocks
 * hundreds of microseconds off for their first milliseconds.  It asserts
 * what must hold: cyclock_now() within a hand-over's bound of
 * CLOCK_MONOTONIC from its first reads, whether the record is used or not.
 * Skipped (77) where the library does not use the counter, or has no CPUID.
 */
#define _GNU_SOURCE

#include "record_forge.h"

/* The hand-over's bound: an error this large, unexplained, is the
 * counter's (CYCLOCK_WRONG_NS); the library aims at 1 us. */
#define HANDOVER_NS 100000

int main(int argc, char **argv)
{
	struct cyclock__record r;
	struct found a, f;
	bool ok;
	int rc;

	forge_child_main(argc, argv);

	if ((rc = forge_begin("test_record_frequency", "hz", &a, &r)))
		return rc;
	if (a.rc == 77 || !forge_leaf(&r, 0x40000010u)) {
		printf("test_record_frequency: no counter used, or no CPUID: skipped\n");
		unlink(forge_path);
		return 77;
	}
	memset(forge_leaf(&r, 0x15u), 0, 4 * sizeof(unsigned int));
	forge_leaf(&r, 0x1u)[2] |= 1u << 31;
	if (forge_leaf(&r, 0x40000000u)[0] < 0x40000010u)
		forge_leaf(&r, 0x40000000u)[0] = 0x40000010u;
	forge_leaf(&r, 0x40000010u)[0] = (unsigned int)(a.hz / 2 / 1000);
	forge_store(&r);
	f = forge_run(NULL);
	ok = f.rc == 0 && f.worst <= HANDOVER_NS;
	printf("%s a stated frequency of %.3f MHz, the counter's %.3f MHz: cyclock_now() within %d "
	       "us\n     worst miss %lld ns, started at %.3f MHz%s\n",
	       ok ? "ok  " : "FAIL", a.hz / 2e6, a.hz / 1e6, HANDOVER_NS / 1000,
	       (long long)f.worst, f.hz / 1e6, f.used ? ", the record used" : "");
	if (!ok)
		printf("     (expected until src/linux/init.c checks a stated frequency "
		       "against the measured one: issue 38)\n");
	unlink(forge_path);
	return ok ? 0 : 1;
}
