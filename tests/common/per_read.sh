#!/bin/bash
# per_read.sh PROBE READ COMMAND...: runs COMMAND with CYCLOCK_ORDERED_READ=READ
# when the library takes that ordered read on this CPU (PROBE, read_forced.c,
# says so); otherwise says why in one line and exits 77, which CTest counts
# as skipped.  cmake/CyclockTests.cmake registers a test's per-read variants
# as this script over the test's own command.
set -u
probe=$1 read=$2
shift 2
# The probe alone: not under a preload test's LD_PRELOAD (the library would
# be in the process twice), its stderr (the library's own line) dropped.
why=$(CYCLOCK_ORDERED_READ=$read env -u LD_PRELOAD "$probe" 2>/dev/null)
case $? in
0) ;;
77)
	echo "skip: CYCLOCK_ORDERED_READ=$read: $why"
	exit 77
	;;
*)
	echo "FAIL: read_forced: ${why:-exited with no word}"
	exit 1
	;;
esac
export CYCLOCK_ORDERED_READ=$read
exec "$@"
