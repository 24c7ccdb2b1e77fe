# The JSON reader's bounds: a file or a pipe above 16 MiB is refused with
# one line naming it and the limit, before it is loaded; running out of
# memory while reading a large file that is allowed says so in one line
# ("out of memory reading FILE"), never an empty error.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
T=$CYCLOCK_TEST_TMP
rm -rf "${T:?}"/*
limit=$((16 << 20))

# Just over the limit, as a sparse file: refused from its size alone.
truncate -s $((limit + 1)) "$T/big.json"
cli_expect_error 3 "$T/big.json: larger than 16 MiB, the most a run file may be" \
	compare "$T/big.json" "$T/big.json"
cli_expect_error 3 "$T/big.json: larger than 16 MiB" plot "$T/big.json" --table
# At the limit it is read (and is not JSON: a file of zeros).
truncate -s "$limit" "$T/at.json"
cli_expect_error 3 "$T/at.json: not JSON" compare "$T/at.json" "$T/at.json"
rm -f "$T/at.json"
# A pipe has no size: it is read up to the limit and refused beyond it.
out=$T/out err=$T/err rc=0
head -c $((limit + 1)) /dev/zero | "$CYCLOCK" plot - --table >"$out" 2>"$err" || rc=$?
((rc == 3)) || cli_fail "a pipe over the limit: exit $rc, want 3"
(($(wc -l <"$err") == 1)) && grep -q '^cyclock: plot: stdin: larger than 16 MiB' "$err" ||
	cli_fail "a pipe over the limit: $(cat "$err")"

# Out of memory on an allowed file: 12 MiB of empty objects (jansson takes
# ~80 bytes per byte of them) read under a 300 MB address-space limit.  Not
# under a sanitizer, which reserves terabytes of address space up front
# (GCC's links it, clang's is inside the executable: look for either).
if LC_ALL=C grep -qaE '__(a|t)san_init' "$CYCLOCK"; then
	echo "skipped: out of memory under a sanitizer (it reserves the address space)"
else
	python3 -c '
import sys
n = (12 << 20) // 3
open(sys.argv[1], "w").write("{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1}], "
                             "\"x\": [" + "{}," * n + "{}]}\n")' "$T/large.json" ||
		fail "cannot write the large file"
	rc=0
	(ulimit -v 300000 && exec "$CYCLOCK" plot "$T/large.json" --table) >"$out" 2>"$err" || rc=$?
	((rc == 3)) || cli_fail "out of memory: exit $rc, want 3: $(head -c 300 "$err")"
	(($(wc -l <"$err") == 1)) || cli_fail "out of memory: not one line: $(head -c 300 "$err")"
	grep -qx "cyclock: plot: out of memory reading $T/large.json" "$err" ||
		cli_fail "out of memory: '$(head -c 300 "$err")'"
fi
cli_done
