# Standard output is checked: a full disk or a closed stdout is one line
# on stderr ("cyclock: standard output: ...") and exit status 1, for every
# command's output (tables, info, plot --table, compare, --help); a full
# disk under --json is the file's own line, the old file whole.  A reader
# that goes away (SIGPIPE, or EPIPE where SIGPIPE is ignored) gets no
# message, and costs no file: the files are written before the table.
# The full disk is a 64 KiB tmpfs in a private mount namespace (unshare -m),
# skipped with a line where that is not permitted.
# shellcheck shell=bash
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${CYCLOCK_TEST_DATA:?}"
T=$(cd "$CYCLOCK_TEST_TMP" && pwd -P) || exit 1
run=$CYCLOCK_TEST_DATA/plot_run.json
base=$CYCLOCK_TEST_DATA/compare_base.json

# stdout_error TEXT CMD...: the tool, its stdout already
# redirected by the caller, exits 1 with the one line on stderr
# "cyclock: standard output: TEXT".
stdout_error() {
	local text=$1 rc=0
	shift
	"$CYCLOCK" "$@" 2>"$T/err" || rc=$?
	((rc == 1)) && [[ $(cat "$T/err") == "cyclock: standard output: $text" ]] ||
		cli_fail "'$*' ($text): exit $rc, stderr '$(cat "$T/err")'"
}

if [[ ${1:-} == in-namespace ]]; then
	# A full disk.
	d=$T/small
	mount -t tmpfs -o size=64k none "$d" || exit 77
	echo old >"$d/old.json"
	echo old >"$d/old.svg"
	dd if=/dev/zero of="$d/fill" bs=4k 2>/dev/null
	for cmd in info "bench --help" "--help" "plot $run --table" "compare $base $base"; do
		# shellcheck disable=SC2086
		stdout_error "No space left on device" $cmd >"$d/out"
	done
	"$CYCLOCK" plot "$run" --out - >"$d/out" 2>"$T/err"
	rc=$?
	((rc == 1)) && [[ $(cat "$T/err") == "cyclock: standard output: No space left on device" ]] ||
		cli_fail "plot --out - on a full disk: exit $rc, '$(cat "$T/err")'"
	# The file's own line, the old file kept; the table still printed.
	"$CYCLOCK" bench --quick --quiet --clocks monotonic --repetitions 2 \
		--json "$d/old.json" warm >"$T/out" 2>"$T/err"
	rc=$?
	((rc == 1)) && [[ $(cat "$T/err") == "cyclock: $d/old.json: No space left on device" ]] ||
		cli_fail "bench --json on a full disk: exit $rc, '$(cat "$T/err")'"
	[[ $(cat "$d/old.json") == old ]] || cli_fail "bench --json on a full disk: the old file changed"
	grep -q '^warm' "$T/out" || cli_fail "bench --json on a full disk: no table"
	cli_expect_error 1 "^cyclock: $d/old.svg: No space left on device\$" plot "$run" --out "$d/old.svg"
	[[ $(cat "$d/old.svg") == old ]] || cli_fail "plot --out on a full disk: the old file changed"
	[[ $(ls -A "$d") == $'fill\nold.json\nold.svg\nout' ]] || cli_fail "left on the disk: $(ls -A "$d")"
	umount "$d"
	cli_done
fi

# A closed stdout.
for cmd in info "bench --help" "--help" "--version" "plot $run --table" "compare $base $base" "run --help"; do
	# shellcheck disable=SC2086
	stdout_error "Bad file descriptor" $cmd >&-
done
# Nothing to write, nothing lost: a closed stdout is no error.
"$CYCLOCK" plot "$run" --out "$T/quiet.svg" >&- 2>"$T/err" && [[ ! -s $T/err ]] ||
	cli_fail "plot --out FILE with stdout closed: exit $?, $(cat "$T/err")"

# A reader gone: SIGPIPE ends the tool, silently, after the file is written;
# where SIGPIPE is ignored, EPIPE is silent too, exit status 1.
rm -f "$T/pipe.svg"
python3 - "$CYCLOCK" "$run" "$T" <<'PY' || cli_fail "SIGPIPE (see above)"
import os, subprocess, sys, signal
tool, run, t = sys.argv[1:4]
def closed_pipe(ignore):
    r, w = os.pipe()
    os.close(r)
    pre = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignore else None
    p = subprocess.run([tool, "plot", run, "--table", "--out", t + "/pipe.svg"], stdout=w,
                       stderr=subprocess.PIPE, preexec_fn=pre)
    os.close(w)
    return p
p = closed_pipe(False)
assert p.returncode == -signal.SIGPIPE, p
assert p.stderr == b"", p.stderr
assert os.path.getsize(t + "/pipe.svg") > 0
os.remove(t + "/pipe.svg")
p = closed_pipe(True)
assert p.returncode == 1 and p.stderr == b"", p
assert os.path.getsize(t + "/pipe.svg") > 0
PY

# The full disk, in a mount namespace of its own.
mkdir -p "$T/small"
if ! unshare -m true 2>/dev/null; then
	echo "skipped: a full disk (unshare -m is not permitted here)"
	cli_done
fi
unshare -m bash "${BASH_SOURCE[0]}" in-namespace
rc=$?
if ((rc == 77)); then
	echo "skipped: a full disk (mounting a tmpfs is not permitted here)"
elif ((rc != 0)); then
	cli_fail "on a full disk (see above)"
fi
cli_done
