# cyclock run: the command line, and (where the preload tests are built,
# which is not in sanitizer builds) a program run under the preload.
# shellcheck shell=bash
source "$(dirname "$0")/lib.sh"

cli_expect_error 2 "no command" run
cli_expect_error 2 "no command" run -v --
cli_expect_error 2 "unknown clock 'bogus'" run --clocks monotonic,bogus -- true
cli_expect_error 2 "unknown clock ''" run --clocks monotonic, -- true
cli_expect_error 2 "bad option '-x'" run -x -- true
cli_expect_error 127 "No such file" run -- "$CYCLOCK_TEST_TMP/no-such-command"
printf 'not a program\n' >"$CYCLOCK_TEST_TMP/not-executable"
chmod -x "$CYCLOCK_TEST_TMP/not-executable"
cli_expect_error 126 "Permission denied" run -- "$CYCLOCK_TEST_TMP/not-executable"

# No preload library is a failure of the tool (1), not of its command line:
# a copy of the tool with none beside it, where none is installed either.
mkdir -p "$tmp/alone/bin"
cp "$CYCLOCK" "$tmp/alone/bin/cyclock" || fail "cannot copy the tool"
CYCLOCK=$tmp/alone/bin/cyclock cli_run run -- true
if grep -q 'libcyclock-preload.so not found' "$err"; then
	CYCLOCK=$tmp/alone/bin/cyclock cli_expect_error 1 "^cyclock: run: libcyclock-preload.so not found" run -- true
else
	echo "a preload at the path the tool was built for: its absence not tested"
fi

cli_run run --help
((rc == 0)) && grep -q '^usage: cyclock run' "$out" || cli_fail "run --help: exit $rc"

# The preload tests' programs, in the same build tree as the tool.
programs=$(dirname "$CYCLOCK")/../../tests/preload
if [[ ! -x $programs/preload_test_errors ]]; then
	echo "no preload test programs in $programs (a sanitizer build): command line only"
	cli_done
fi

# A sanitizer build's preload needs the sanitizer's runtime, which
# uninstrumented programs lack (clang), or must follow it (GCC's ASan):
# "cyclock run" itself cannot arrange that, so stop at the command line.
cli_run run -- true
if ((rc != 0)) && grep -qE 'undefined symbol: __[a-z]*san|ASan runtime does not come first' "$err"; then
	echo "a sanitizer build's preload: programs not run"
	cli_done
fi
((rc == 0)) || cli_fail "run true: exit $rc: $(cat "$err")"

# Options end at the command, with or without "--", as env(1)'s do: the
# command's own options are its own.
cli_run run -v sh -c 'echo "$1"' sh --help
[[ $rc == 0 && $(cat "$out") == --help ]] || cli_fail "run sh ... --help: exit $rc: $(cat "$out" "$err")"
cli_run run sh -c 'echo "$1"' sh --clocks=x
[[ $rc == 0 && $(cat "$out") == --clocks=x ]] || cli_fail "run sh ... --clocks=x: exit $rc: $(cat "$out" "$err")"

# LD_PRELOAD: the preload first, then what was there; -v says so.
LD_PRELOAD=libm.so.6 cli_run run -v --clocks realtime -- sh -c 'echo "$LD_PRELOAD $CYCLOCK_PRELOAD_CLOCKS"'
((rc == 0)) || cli_fail "run sh: exit $rc: $(cat "$err")"
grep -qE '^/.*/libcyclock-preload\.so:libm\.so\.6 realtime$' "$out" ||
	cli_fail "run sh: environment '$(cat "$out")'"
grep -q '^cyclock: run: LD_PRELOAD=.*libcyclock-preload.so' "$err" || cli_fail "run -v: '$(cat "$err")'"
cli_run run -v --relaxed -- sh -c 'echo "$CYCLOCK_PRELOAD_RELAXED"'
[[ $(cat "$out") == 1 ]] && grep -q 'CYCLOCK_PRELOAD_RELAXED=1' "$err" ||
	cli_fail "run --relaxed: '$(cat "$out" "$err")'"

# The program sees the preload, serving what --clocks says (77: no trusted
# counter, the preload passes everything through).
cli_run run -- "$programs/preload_test_errors"
((rc == 0 || rc == 77)) || cli_fail "run preload_test_errors: exit $rc: $(cat "$out" "$err")"
if ((rc == 0)); then
	grep -q 'served mask 0x93,' "$out" || cli_fail "run: served '$(cat "$out")'"
	cli_run run --clocks monotonic,boottime -- "$programs/preload_test_errors"
	grep -q 'served mask 0x82,' "$out" || cli_fail "run --clocks: served '$(cat "$out")'"
	cli_run run -- "$programs/preload_test_consistency" 0.5
	((rc == 0)) || cli_fail "run preload_test_consistency: exit $rc: $(cat "$out" "$err")"
	cli_run run --clocks monotonic,realtime,monotonic_coarse,realtime_coarse -- "$programs/preload_test_coarse"
	grep -q 'served mask 0x63,' "$out" || cli_fail "run --clocks ..._coarse: '$(cat "$out" "$err")'"
	# --relaxed: the preload says so (bit 31), and its checker holds per thread;
	# without it, relaxed is off even when the environment had it on.
	cli_run run --relaxed -- "$programs/preload_test_consistency" 0.5
	((rc == 0)) && grep -q 'served mask 0x80000093 (relaxed' "$out" ||
		cli_fail "run --relaxed: exit $rc: '$(cat "$out" "$err")'"
	CYCLOCK_PRELOAD_RELAXED=1 cli_run run -- "$programs/preload_test_errors"
	grep -q 'served mask 0x93,' "$out" || cli_fail "run without --relaxed: '$(cat "$out")'"
fi
cli_done
