# Every help text's lists are aligned: each list's descriptions start at
# one column, its longest name's (bench --help's clocks and scenarios, the
# commands), continued lines too, and no line is wider than 79 columns
# (help_align.py says how it reads a list).
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
here=$(dirname "${BASH_SOURCE[0]}")
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

# The checker itself: a name that runs into its description, and a list
# whose descriptions start at two columns, are faults.
printf 'Clocks:\n  short   a clock\n  a_name_longer_than_the_column a clock\n' >"$tmp/bad1.txt"
printf 'Options:\n  --one     one\n  --two    two\n' >"$tmp/bad2.txt"
for bad in bad1 bad2; do
	python3 "$here/help_align.py" "$tmp/$bad.txt" >/dev/null &&
		cli_fail "help_align.py passed $bad.txt"
done

for cmd in "" info bench compare plot run; do
	# shellcheck disable=SC2086 # no command: the tool's own --help
	cli_run $cmd --help
	((rc == 0)) || cli_fail "${cmd:-cyclock} --help: exit $rc"
	cp "$out" "$tmp/help_${cmd:-cyclock}.txt"
	python3 "$here/help_align.py" "$tmp/help_${cmd:-cyclock}.txt" >&2 ||
		cli_fail "${cmd:-cyclock} --help is not aligned"
done
# The longest clock names have their descriptions on their line, aligned.
for c in cyclock_now_relaxed_inline engine_percpu_unstable; do
	grep -qE "^  $c  +[a-z]" "$tmp/help_bench.txt" || cli_fail "bench --help: $c is not aligned"
done
cli_done
