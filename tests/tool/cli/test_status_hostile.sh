#!/usr/bin/env bash
# cyclock status against a process that attacks it through what it maps,
# one attack a case, each with another process's read beside it that must
# still be written (docs/tool.md, "cyclock status"):
#   fifo        a FIFO where a file it maps was: a reader that opens the
#               maps' names hangs for good
#   symlink     a symlink there to a root-only file, the target nobody's:
#               a reader that opens the maps' names opens it (strace sees)
#   long_line   a maps line of 4300 bytes whose tail reads as a mapping of a
#               root-only FIFO: a reader that cuts lines at 4223 opens it
#   truncate    a mapped file truncated during the read: SIGBUS where it
#               is mapped and parsed in place
#   sparse      a sparse file on a full tmpfs: SIGBUS too
#   cpu_one, cpu_100, cpu_exe
#               a 4.4 MB object of 1500 symbol tables over 180 000 symbols;
#               a lighter one mapped 100 times, behind 20 other files in
#               the maps; the program itself so crafted: seconds of CPU
#               where every table is scanned against every symbol, and
#               de-duplication stops after 16 files.  Each read's CPU is said;
#               it must stay within ten times the tool's budget (50 ms)
#               past what a plain process costs
#   misaligned  section headers at odd offsets (UBSan, where parsed)
#   preload     the preload refused by ld.so under a noexec mount, half
#               mapped: said so, not read as a library not initialised
# The cases that mount or change users need root, each skipped with a line
# otherwise.  Crafted objects: tests/tool/status/hostile_elf.py.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/tool/cli/status_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/status_lib.sh"

elf=${CYCLOCK_STATUS_ELF:?tests/tool/status/hostile_elf.py}
export CYCLOCK_LIKE=$CYCLOCK # the crafted objects are this machine's
root=0
((EUID == 0)) && command -v setpriv >/dev/null && root=1
skip_case() { echo "skip: $1: $2"; }

# Files the targets map, readable by nobody; secrets only root can open.
files=$tmp/files secret=$tmp/secret
rm -rf "$files" "$secret"
mkdir -p "$files" "$secret" && chmod 755 "$files" && chmod 700 "$secret" || fail "mkdir"
mkfifo -m 600 "$secret/fifo" && echo key >"$secret/key" && chmod 600 "$secret/key" || fail "secrets"
"$py" "$elf" slow "$files/heavy.elf" 180000 1500 && "$py" "$elf" slow "$files/light.elf" 180000 150 &&
	"$py" "$elf" misaligned "$files/misaligned.elf" && "$py" "$elf" exe "$T/status_plain" \
	"$files/crafted_exe" 180000 1500 || fail "hostile_elf.py"
chmod 644 "$files"/*.elf

# The process read beside each attack, and what a read of a plain one costs.
start linked "$T/status_linked"
linked=$pid
status plain "$linked"
expect plain 0 || fail "a plain read failed"
plain_ms=$cpu_ms

# both NAME: the attacker's pid and $linked were read and written, exit 0.
both() {
	expect "$1" 0 || return
	grep -q "^pid $pid " "$out" && grep -q "^pid $linked " "$out" ||
		cli_fail "$1: not both processes written: $(head -c 300 "$out")"
}

# opens_only NAME ARGS...: "cyclock status ARGS" under strace opens no path of
# the targets' (under $tmp) and nothing through /proc/PID/root.
opens_only() {
	local name=$1
	shift
	ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 timeout -k 2 20 strace -f -qq \
		-e trace=open,openat,openat2 -o "$tmp/$name.strace" "$CYCLOCK" status "$@" \
		>/dev/null 2>&1
	grep -E "\"($tmp|/proc/[0-9]+/root)" "$tmp/$name.strace" >"$tmp/$name.opened" &&
		cli_fail "$name: opened a path the target names: $(head -3 "$tmp/$name.opened")"
}

# A FIFO, then a symlink to a root-only file, where a mapped file was
# (named as the maps name it once it is gone).
cp "$files/misaligned.elf" "$files/fifo.so"
start fifo "$T/status_linked" --map "$files/fifo.so"
cp "$files/light.elf" "$files/link.so"
rm "$files/fifo.so" && mkfifo "$files/fifo.so (deleted)"
status fifo "$pid" "$linked"
both fifo
echo "fifo: exit $rc"
if ((root)) && command -v strace >/dev/null; then
	start symlink setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$T/status_linked" --map "$files/link.so"
	rm "$files/link.so" && ln -s "$secret/key" "$files/link.so (deleted)"
	status symlink "$pid" "$linked"
	both symlink
	opens_only symlink "$pid"
	echo "symlink: exit $rc"
else
	skip_case symlink "needs root and strace"
fi

# A maps line of 4300 bytes: the name's tail, from byte 4223 of the line
# (its name starts at column 73), reads as a mapping of $secret/fifo.
"$py" - "$files/long" "$secret/fifo" <<-'PY' || fail "the long name"
	import os, sys
	base, target = sys.argv[1], sys.argv[2]
	tail = "1000-2000 r--p 00000000 00:00 1 " + target
	path = base
	while 4223 - 73 - len(path) > 220:
	    path += "/" + "d" * 200
	path += "/" + "x" * (4223 - 73 - len(path) - 1) + tail
	parts = path[len(base) + 1:].split("/")
	os.mkdir(base)
	fd = os.open(base, os.O_RDONLY)
	for p in parts[:-1]:
	    os.mkdir(p, 0o755, dir_fd=fd)
	    fd = os.open(p, os.O_RDONLY, dir_fd=fd)
	os.close(os.open(parts[-1], os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
	print(path, file=open(base + ".name", "w"), end="")
PY
long=$(cat "$files/long.name")
if ((root)); then
	start long_line setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$T/status_linked" --map "$long"
else
	start long_line "$T/status_linked" --map "$long"
fi
awk 'length($0) > 4223' "/proc/$pid/maps" | grep 'd\{200\}' >/dev/null ||
	cli_fail "long_line: no maps line longer than 4223 bytes"
status long_line "$pid" "$linked"
both long_line
echo "long_line: exit $rc"
rm -rf "$files/long" # deeper than PATH_MAX: a trouble to tools that walk the tree

# A mapped file truncated during the read.
cp "$files/heavy.elf" "$files/truncated.elf"
start truncate "$T/status_linked" --map "$files/truncated.elf"
( sleep 0.3 && truncate -s 0 "$files/truncated.elf" ) &
status truncate "$pid" "$linked"
wait $!
both truncate
echo "truncate: exit $rc"

# A sparse file on a tmpfs too small for it, in a mount namespace of the
# target's own.
if ((root)) && command -v unshare >/dev/null; then
	mkdir -p "$tmp/small"
	start sparse unshare -m --propagation private sh -c 'mount -t tmpfs -o size=1m tmpfs "$1" &&
		"$2" "$3" sparse "$1/sparse.elf" 67108864 && exec "$4" --map "$1/sparse.elf"' \
		sh "$tmp/small" "$py" "$elf" "$T/status_linked"
	status sparse "$pid" "$linked"
	both sparse
	echo "sparse: exit $rc"
else
	skip_case sparse "needs root (a tmpfs mount)"
fi

# Crafted objects: the CPU of each read, within ten times the tool's own
# budget past a plain read's (a generous bound: a reader that scans them
# takes seconds).
cpu() {
	if ((cpu_ms > plain_ms + 500)); then
		cli_fail "$1: $cpu_ms ms of CPU (a plain process: $plain_ms ms)"
	fi
	echo "$1: exit $rc, $cpu_ms ms of CPU (a plain process: $plain_ms ms)"
}
start cpu_one "$T/status_linked" --map "$files/heavy.elf"
status cpu_one "$pid" "$linked"
both cpu_one && cpu cpu_one
# The other files, of 3 MB (sparse), are mapped after the crafted one and
# below it (mappings of 2 MB and more are aligned to 2 MB, where the
# smaller would fill the gaps above): the maps list them first.
others=()
for i in $(seq 20); do
	cp "$files/misaligned.elf" "$files/other$i.so" && truncate -s 3M "$files/other$i.so"
	others+=(--map "$files/other$i.so")
done
start cpu_100 "$T/status_linked" --map-n 100 "$files/light.elf" "${others[@]}"
status cpu_100 "$pid" "$linked"
both cpu_100 && cpu cpu_100
start cpu_exe "$files/crafted_exe"
status cpu_exe "$pid" "$linked"
expect cpu_exe 1 "process $pid \(crafted_exe\) has no cyclock" && cpu cpu_exe

# Misaligned section headers (UBSan, in the sanitizers' builds, reports
# a misaligned read and fails the read).
start misaligned "$T/status_linked" --map "$files/misaligned.elf"
status misaligned "$pid" "$linked"
both misaligned
grep -q 'runtime error' "$err" && cli_fail "misaligned: $(grep -m1 'runtime error' "$err")"
echo "misaligned: exit $rc"

# The preload refused by ld.so (as NoExecPaths= makes it), half mapped.
if ((root)) && [[ -n ${CYCLOCK_PRELOAD:-} ]] && command -v unshare >/dev/null; then
	mkdir -p "$tmp/noexec"
	start preload unshare -m --propagation private sh -c 'mount -t tmpfs -o noexec,size=8m tmpfs "$1" &&
		cp "$2" "$1/libcyclock-preload.so" && LD_PRELOAD="$1/libcyclock-preload.so" exec "$3"' \
		sh "$tmp/noexec" "$CYCLOCK_PRELOAD" "$T/status_plain"
	grep -q 'cannot be preloaded' "$tmp/preload.err" || cli_fail "preload: ld.so loaded it"
	status preload "$pid"
	expect preload 1 "libcyclock-preload.so is mapped but not loaded"
	echo "preload: exit $rc: $(cat "$err")"
else
	skip_case preload "needs root and the preload"
fi

((cli_failures == 0)) || exit 1
echo "status: no attack through what a process maps held"
