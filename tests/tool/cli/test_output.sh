# The file writer (bench/output.c), driven by "plot --out" (quick) and
# "bench --json/--csv": a device node or a FIFO is written in place, never
# replaced; a symbolic link stays a link and its target is written; an
# existing file keeps its mode and owner; a name of NAME_MAX (255) bytes
# works; two names of one output are refused before anything is measured.
# Device nodes are made in the scratch directory with mknod, never the
# machine's /dev; standard output is named /proc/self/fd/1, which nothing
# can be created beside.
# shellcheck shell=bash
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
T=$(cd "$CYCLOCK_TEST_TMP" && pwd -P) || exit 1
rm -rf "${T:?}"/* "$T"/.cyclock-*
run=$CYCLOCK_TEST_DATA/plot_run.json

"$CYCLOCK" plot "$run" --out "$T/ref.svg" 2>"$T/err" || fail "plot: $(cat "$T/err")"
[[ -s $T/ref.svg ]] || fail "plot wrote no file"
# same FILE: FILE holds what plot writes.
same() { cmp -s "$T/ref.svg" "$1"; }
# plot_out ARGS...: "plot RUN --out ARGS..."; sets $rc, $out and $err.
plot_out() { cli_run plot "$run" --out "$@"; }
# bench_quick ARGS...: the shortest bench run; its output in $out and $err.
bench_quick() { cli_run bench --quick --quiet --clocks monotonic --repetitions 2 "$@" warm; }

# A character device: written in place (ENOSPC from a full one), the node kept.
if mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/full" c 1 7 && echo x 2>/dev/null >"$T/null"; then
	plot_out "$T/null"
	((rc == 0)) && [[ -c $T/null && ! -s $err ]] ||
		cli_fail "plot --out a null device: exit $rc, $(ls -l "$T/null"), $(cat "$err")"
	cli_expect_error 1 "^cyclock: $T/full: No space left on device\$" plot "$run" --out "$T/full"
	[[ -c $T/full ]] || cli_fail "plot --out a full device replaced it: $(ls -l "$T/full")"
	# bench: both files to one null device is no conflict; a full one fails.
	bench_quick --json "$T/null" --csv "$T/null"
	((rc == 0)) && [[ -c $T/null && -s $out ]] ||
		cli_fail "bench --json/--csv a null device: exit $rc, $(ls -l "$T/null"), $(cat "$err")"
	bench_quick --json "$T/full"
	((rc == 1)) && [[ $(cat "$err") == "cyclock: $T/full: No space left on device" && -c $T/full ]] ||
		cli_fail "bench --json a full device: exit $rc, $(ls -l "$T/full"), $(cat "$err")"
	grep -q '^warm' "$out" || cli_fail "bench --json a full device: no table: $(cat "$out")"
else
	echo "skipped: device nodes (mknod is not permitted, or the file system is nodev)"
fi

# A FIFO: written to its reader, still a FIFO.
mkfifo "$T/fifo" || fail "mkfifo"
timeout 30 cat "$T/fifo" >"$T/fifo.got" &
reader=$!
timeout 30 "$CYCLOCK" plot "$run" --out "$T/fifo" >"$T/out" 2>"$T/err"
rc=$?
wait "$reader"
((rc == 0)) && [[ -p $T/fifo ]] && same "$T/fifo.got" ||
	cli_fail "plot --out a FIFO: exit $rc, $(ls -l "$T/fifo"), $(cat "$T/err")"

# Standard output by name: a pipe is written as "-", whole.
"$CYCLOCK" plot "$run" --out /proc/self/fd/1 2>"$T/err" | cat >"$T/pipe.got"
same "$T/pipe.got" && [[ ! -s $T/err ]] || cli_fail "plot --out /proc/self/fd/1 | cat: $(cat "$T/err")"

# A symbolic link: its target is replaced, the link stays.
echo old >"$T/target.svg"
ln -s target.svg "$T/link.svg"
plot_out "$T/link.svg"
((rc == 0)) && [[ -L $T/link.svg ]] && same "$T/target.svg" ||
	cli_fail "plot --out a symlink: exit $rc, $(ls -l "$T/link.svg"), $(cat "$err")"
ln -s nowhere "$T/dangling.svg"
cli_expect_error 2 "^cyclock: plot: --out: cannot write '$T/dangling.svg': a symbolic link to nothing\$" \
	plot "$run" --out "$T/dangling.svg"
[[ -L $T/dangling.svg && ! -e $T/nowhere ]] || cli_fail "a link to nothing was written"

# An existing file keeps its mode, and (as root) its owner and group.
echo old >"$T/kept.svg"
chmod 600 "$T/kept.svg"
want="600 $(stat -c '%U %G' "$T/kept.svg")"
if ((EUID == 0)) && id nobody >/dev/null 2>&1; then
	chown nobody:"$(id -gn nobody)" "$T/kept.svg"
	want="600 nobody $(id -gn nobody)"
fi
plot_out "$T/kept.svg"
((rc == 0)) && same "$T/kept.svg" || cli_fail "plot over a file: exit $rc, $(cat "$err")"
[[ $(stat -c '%a %U %G' "$T/kept.svg") == "$want" ]] ||
	cli_fail "plot over a file: '$(stat -c '%a %U %G' "$T/kept.svg")', not '$want'"
# A new file has the umask's mode.
(umask 027 && "$CYCLOCK" plot "$run" --out "$T/new.svg")
[[ $(stat -c %a "$T/new.svg") == 640 ]] || cli_fail "a new file's mode: $(stat -c %a "$T/new.svg")"

# A name of NAME_MAX bytes.
long=$(printf 'n%.0s' {1..251}).svg
plot_out "$T/$long"
((rc == 0)) && same "$T/$long" || cli_fail "a name of 255 bytes: exit $rc, $(cat "$err")"
compgen -G "$T/.cyclock-*" >/dev/null && cli_fail "a temporary was left: $(ls -A "$T")"

# Two names of one file, refused before measuring; /dev/null twice is not.
: >"$T/same.json"
ln -s same.json "$T/alias.json"
cli_expect_error 2 "^cyclock: bench: --json '$T/x.json' and --csv '$T/x.json' are the same file\$" \
	bench --json "$T/x.json" --csv "$T/x.json" warm
cli_expect_error 2 "are the same file" bench --json "$T/x.json" --csv "$T/./x.json" warm
cli_expect_error 2 "are the same file" bench --json "$T/same.json" --csv "$T/alias.json" warm
cli_expect_error 2 "cannot both write to standard output" bench --json - --csv /proc/self/fd/1 warm
cli_expect_error 2 "would mix on standard output" plot "$run" --table --out /proc/self/fd/1
cp "$run" "$T/in.json"
cli_expect_error 2 "is the input file" plot "$T/in.json" --out "$T/./in.json"
cmp -s "$run" "$T/in.json" || cli_fail "plot --out its input changed it"
[[ ! -e $T/x.json && ! -s $T/same.json ]] || cli_fail "a refused run wrote a file"

cli_done
