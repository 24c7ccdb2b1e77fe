# The command line itself: help, version, and every bad input answered by
# one line on stderr, exit status 2 (see cyclock(1)) and nothing measured.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cli_run --help
((rc == 0)) || cli_fail "--help: exit $rc"
diff -u "$CYCLOCK_TEST_DATA/usage_help.txt" "$out" || cli_fail "--help differs from usage_help.txt"

cli_run --version
((rc == 0)) && grep -qxE 'cyclock [0-9]+\.[0-9]+\.[0-9]+' "$out" || cli_fail "--version: $(cat "$out")"

for cmd in info bench compare plot run; do
	cli_run "$cmd" --help
	((rc == 0)) && grep -q "^usage: cyclock $cmd" "$out" && [[ ! -s $err ]] ||
		cli_fail "$cmd --help: exit $rc, $(head -1 "$out")"
done

# bench --help lists every scenario and every clock this build knows.
cli_run bench --help
for s in warm cold sparse scale falseshare resolution warp ctxsw accuracy; do
	grep -qE "^  $s " "$out" || cli_fail "bench --help lacks scenario $s"
done
for c in cyclock_now cyclock_now_inline cyclock_now_relaxed cyclock_raw cyclock_realtime cyclock_boottime \
	cyclock_coarse cyclock_local ordered_ns monotonic monotonic_raw realtime boottime \
	monotonic_coarse realtime_coarse thread_cputime process_cputime times gettimeofday \
	syscall_monotonic preload_monotonic; do
	grep -qE "^  $c " "$out" || cli_fail "bench --help lacks clock $c"
done
# The preload's row is there wherever "cyclock run" finds the library: in
# the build tree, beside the tool.
if [[ -e $(dirname "$CYCLOCK")/../../src/preload/libcyclock-preload.so ]]; then
	cli_clock_here preload_monotonic || cli_fail "preload_monotonic not offered beside a preload"
fi

cli_expect_error 2 "unknown command 'nosuch'" nosuch
cli_expect_error 2 "unknown option '--bogus'" --bogus
cli_expect_error 2 "unexpected argument 'extra'" info extra
cli_expect_error 2 "unknown scenario 'nosuch'" bench nosuch
cli_expect_error 2 "unknown clock 'nosuch'" bench warm --clocks monotonic,nosuch
cli_expect_error 2 "names no clock" bench warm --clocks ,
cli_expect_error 2 "--threads wants" bench scale --threads 0
cli_expect_error 2 "--threads wants" bench scale --threads 1,x
cli_expect_error 2 "--threads wants" bench scale --threads 2000
cli_expect_error 2 "--repetitions wants" bench warm --repetitions -1
cli_expect_error 2 "--repetitions wants" bench warm --repetitions 3x
cli_expect_error 2 "--duration wants" bench accuracy --duration abc
cli_expect_error 2 "--duration wants" bench accuracy --duration 0
cli_expect_error 2 "--repetitions wants" bench warm --repetitions abc
cli_expect_error 2 "--repetitions wants" bench warm --repetitions 99999999999999999999
cli_expect_error 2 "--threads wants" bench scale --threads 99999999999999999999
cli_expect_error 2 "--duration wants" bench accuracy --duration nan
cli_expect_error 2 "--duration wants" bench accuracy --duration 1e400
# Every option error names the option as given, and the command's --help.
cli_expect_error 2 "^cyclock: bench: bad option '--bogus' \\(see 'cyclock bench --help'\\)\$" bench --bogus
cli_expect_error 2 "^cyclock: bench: bad option '-x' " bench -xq
cli_expect_error 2 "^cyclock: bench: bad option '-x' " bench -qx
cli_expect_error 2 "^cyclock: bench: --json needs a value \\(see 'cyclock bench --help'\\)\$" bench --json
cli_expect_error 2 "^cyclock: bench: --repetitions needs a value " bench warm --repetitions
cli_expect_error 2 "^cyclock: bench: '--quick=1': --quick takes no value " bench --quick=1
cli_expect_error 2 "^cyclock: compare: bad option '-x' " compare -xh a b
cli_expect_error 2 "^cyclock: compare: -t needs a value " compare a b -t
cli_expect_error 2 "^cyclock: compare: --threshold wants a percentage" compare --threshold=abc a b
cli_expect_error 2 "^cyclock: plot: --out needs a value \\(see 'cyclock plot --help'\\)\$" plot a.json --out
cli_expect_error 2 "^cyclock: plot: -o needs a value " plot a.json -o
cli_expect_error 2 "^cyclock: plot: --out: cannot write '': empty file name\$" plot a.json --out=
cli_expect_error 2 "^cyclock: plot: '--table=1': --table takes no value" plot a.json --table=1
cli_expect_error 2 "^cyclock: plot: bad option '-x' \\(see 'cyclock plot --help'\\)\$" plot -x a.json
cli_expect_error 2 "^cyclock: run: --clocks needs a value \\(see 'cyclock run --help'\\)\$" run --clocks
cli_expect_error 2 "^cyclock: run: bad option '-x' \\(see 'cyclock run --help'\\)\$" run -vx -- true
cli_expect_error 2 "^cyclock: run: '--relaxed=1': --relaxed takes no value " run --relaxed=1 -- true
cli_expect_error 2 "^cyclock: run: --clocks needs a value" run --clocks= -- true
cli_expect_error 2 "^cyclock: bench: --json: cannot write '/nonexistent/x.json': No such file or directory\$" \
	bench warm --json /nonexistent/x.json
[[ ! -e /nonexistent/x.json ]] || cli_fail "created /nonexistent/x.json"
cli_expect_error 2 "cannot write" bench warm --csv /nonexistent/x.csv
cli_expect_error 2 "cannot both write to standard output" bench warm --json - --csv -
# Every output is checked before measuring (nothing on standard output: no
# table), by making its temporary: root may write anywhere access() asks
# about, yet no file can be created in /proc or /sys.
cli_expect_error 2 "^cyclock: bench: --json: cannot write '': empty file name\$" bench warm --quick --json ''
cli_expect_error 2 "^cyclock: bench: --csv: cannot write '': empty file name\$" bench warm --quick --csv=
cli_expect_error 2 "^cyclock: bench: --csv: cannot write '/proc/x.csv': " bench warm --quick --csv /proc/x.csv
cli_expect_error 2 "^cyclock: bench: --json: cannot write '/sys/x.json': " bench warm --quick --json /sys/x.json
cli_expect_error 2 "^cyclock: bench: --json: cannot write '/proc/self/status': " \
	bench warm --quick --json /proc/self/status
cli_expect_error 2 "^cyclock: plot: --out: cannot write '/proc/x.svg': " \
	plot "$CYCLOCK_TEST_DATA/plot_run.json" --out /proc/x.svg
cli_expect_error 2 "^cyclock: info: --output: cannot write '/sys/x.prom': " \
	info --format prometheus --output /sys/x.prom
cli_expect_error 2 "^cyclock: info: --output: cannot write '': empty file name\$" info --output ''

# info names every part of its report, and says why when the counter is
# not used.
cli_run info
((rc == 0)) || cli_fail "info: exit $rc: $(cat "$err")"
for key in cyclock resolution trusted kernel clocksource virtualization cpu caches; do
	grep -qE "^$key " "$out" || cli_fail "info lacks '$key': $(cat "$out")"
done
if grep -q '^trusted  *yes' "$out"; then
	for key in clocks conversion wrap engine; do
		grep -qE "^$key " "$out" || cli_fail "info lacks '$key'"
	done
	# The engine's choice for this counter: its update interval and rate error.
	grep -qE '^engine +64 bits at [0-9]+ Hz, resolution .* ns, update every [0-9]+ ns, rate within [0-9]+\.[0-9]{3} ppb$' "$out" ||
		cli_fail "info's engine line: $(grep '^engine' "$out")"
	# Which ordered read and why; the library's own warp check ran, or says why not.
	grep -qE '^ordered read +[^ ].*: .+' "$out" || cli_fail "info lacks the ordered read"
	grep -qE '^trusted .*(warp between CPUs in [0-9]+ turns|cross-CPU check|one CPU allowed)' "$out" ||
		cli_fail "info's warp check: $(grep '^trusted' "$out")"
	# A forced read is taken where it works, and a bad name is refused with one line.
	CYCLOCK_ORDERED_READ=bogus cli_run info
	grep -q 'ignoring CYCLOCK_ORDERED_READ="bogus"' "$err" ||
		cli_fail "CYCLOCK_ORDERED_READ=bogus: '$(cat "$err")'"
fi
CYCLOCK_SOURCE=kernel cli_run info
((rc == 0)) && grep -qE '^trusted  *no, .*CYCLOCK_SOURCE' "$out" ||
	cli_fail "CYCLOCK_SOURCE=kernel info: $(grep trusted "$out")"

# The man page renders without a warning and names every command, scenario
# and option the tool has (roff writes a - as \-).
man_page=$(dirname "${BASH_SOURCE[0]}")/../../../docs/man/cyclock.1
if command -v man >/dev/null; then
	warnings=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$man_page" 2>&1 >/dev/null)
	[[ -z $warnings ]] || cli_fail "cyclock.1 renders with warnings: $warnings"
fi
for word in info bench compare plot run warm cold sparse scale falseshare resolution warp ctxsw \
	accuracy --clocks --threads --repetitions --duration --quick --json --csv --quiet \
	--threshold --table --out --relaxed CYCLOCK_ORDERED_READ CYCLOCK_PRELOAD_RELAXED; do
	grep -qF -- "$(sed 's/-/\\-/g' <<<"$word")" "$man_page" ||
		cli_fail "cyclock.1 does not mention $word"
done

cli_done
