#!/usr/bin/env bash
# Each stage of scripts/test.sh installs what it needs and nothing more
# (scripts/lib.sh's cyclock_stage_deps, listed by "scripts/test.sh --deps",
# which runs nothing): the model stage no PostgreSQL; the realworld
# tests' requirements only the release stage, the one that runs them; the
# cyclock tool's tests' (label tool) every stage whose ctest runs them.
#   stage_deps.sh SRC
set -uo pipefail

src=$1
status=0
fail() {
	echo "FAIL: $*"
	status=1
}
deps() { # deps STAGE: the requirements "test.sh --deps" lists for STAGE
	local out
	out=$(CYCLOCK_TEST_STAGES=$1 "$src/scripts/test.sh" --deps) || { fail "test.sh --deps ($1)"; return; }
	[[ $out == "$1: "* ]] || fail "test.sh --deps ($1) printed: $out"
	echo " ${out#*: } "
}
has() { [[ $(deps "$1") == *" $2 "* ]]; }

all="release asan tsan generic model aarch64 riscv64 package"
for s in $all; do
	for r in postgres linux-source cyclictest psycopg2 node-exporter systemd-nspawn sshd wrk; do
		if [[ $s == release ]]; then
			has "$s" "$r" || fail "$s: no $r (the realworld tests)"
		else
			! has "$s" "$r" || fail "$s: $r, which only the realworld tests (release) need"
		fi
	done
done
has model relacy || fail "model: no relacy"
for s in release asan tsan generic; do
	has "$s" rsvg-convert || fail "$s runs the tool's tests: no rsvg-convert"
done
has tsan clang-tsan || fail "tsan: no clang-tsan"
has package lintian || fail "package: no lintian"
# The whole list: one line per stage, in order (whatever stages the run
# that runs this test was asked for).
lines=$(env -u CYCLOCK_TEST_STAGES "$src/scripts/test.sh" --deps | cut -d: -f1 | tr '\n' ' ')
[[ $lines == "$all " ]] || fail "test.sh --deps lists: $lines"
echo "model: $(deps model)"
((status == 0)) && echo "ok: each stage's requirements its own"
exit "$status"
