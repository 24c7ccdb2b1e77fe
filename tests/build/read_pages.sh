#!/usr/bin/env bash
# A read after a pause touches one page of our code and one of our data
# (docs/hosted.md, "A read after a pause"): after an idle gap every page
# a read touches is a page walk of its own.  In libcyclock.so and in
# libcyclock-preload.so, the functions a read past the horizon runs lie on
# one 4 KiB page (src/linux/internal.h, CYCLOCK__READ_PATH), and so do
# cyclock__mono (whose first line holds, in the preload, the mask its
# clock_gettime() loads: cyclock/timeline.h);
# and libcyclock.so's readers reach their slow path and their timeline
# without its PLT or GOT (src/CMakeLists.txt; internal.h, cyclock__tl_of()),
# fetching the timeline's first line while they load its self
# (cyclock__tl_read()).
#   read_pages.sh NM OBJDUMP LIBCYCLOCK [PRELOAD]
set -euo pipefail

nm=$1 objdump=$2 lib=$3 preload=${4:-}
fail=0

# Symbols $3... of library $2 (named $1): on one page, each whole.
one_page() {
	local what=$1 so=$2 addr size sym first=
	local -A need=()
	shift 2
	for sym; do need[$sym]=1; done
	while read -r addr size _ sym; do
		[[ -n $sym && -n ${need[$sym]:-} ]] || continue
		unset "need[$sym]"
		local p=$((16#$addr / 4096)) q=$(((16#$addr + 16#$size - 1) / 4096))
		if ((p != q)); then
			echo "$what: $sym spans pages $p-$q"
			fail=1
		fi
		first=${first:-$p}
		if ((p != first)); then
			echo "$what: $sym on page $p, not $first"
			fail=1
		fi
	done < <("$nm" -S "$so")
	for sym in "${!need[@]}"; do
		echo "$what: no symbol $sym"
		fail=1
	done
}

# The instructions of functions $2... in disassembly $1, each line "FN INSN".
code_of() {
	awk -v list="${*:2}" '
		BEGIN { n = split(list, f, " "); for (i = 1; i <= n; i++) want["<" f[i] ">:"] = 1 }
		/^[0-9a-f]+ </ { on = ($2 in want); name = substr($2, 2, length($2) - 3); next }
		/^$/ { on = 0 }
		on { print name, $0 }' <<<"$1"
}

readers=(cyclock_now cyclock_now_relaxed cyclock_raw cyclock_realtime cyclock_boottime cyclock_local)
one_page "libcyclock.so code" "$lib" "${readers[@]}" cyclock__slow timeline_or_past counter_slow \
	kernel_mono kernel_raw kernel_real kernel_boot kernel_local
one_page "libcyclock.so data" "$lib" cyclock__mono
lib_code=$("$objdump" -d --no-show-raw-insn "$lib")
# The PLT's and GOT's sections, "start end" in hex, and the targets of the
# readers' and slow path's instructions (branches, RIP-relative loads).
tables=$("$objdump" -h "$lib" | awk '$2 ~ /^\.(plt|got)/ { print $2, $4, $3 }')
targets=$(code_of "$lib_code" "${readers[@]}" cyclock__slow | awk '{
	fn = $1; sub(/^[^ ]+ /, "")
	if (match($0, /(# |[a-z]+ +)[0-9a-f]+ </)) {
		t = substr($0, RSTART, RLENGTH); sub(/^(# |[a-z]+ +)/, "", t); sub(/ <$/, "", t)
		print fn, t
	}
}')
while read -r sec start size; do
	while read -r fn t; do
		if ((16#$t >= 16#$start && 16#$t < 16#$start + 16#$size)); then
			echo "libcyclock.so: $fn uses $sec (at $t)"
			fail=1
		fi
	done <<<"$targets"
done <<<"$tables"
# Each reader fetches its timeline's first line while it loads self
# (internal.h, cyclock__tl_read()): a prefetch of the timeline.
# (grep without -q: one that quits at the first match leaves code_of a
# broken pipe, which pipefail counts as a failure.)
for fn in "${readers[@]}"; do
	code_of "$lib_code" "$fn" | grep -E 'prefetch.*<cyclock__(mono|raw)(@@Base)?>' >/dev/null ||
		{ echo "libcyclock.so: $fn does not prefetch its timeline"; fail=1; }
done
if [[ -n $preload ]]; then
	one_page "preload code" "$preload" clock_gettime slow_ts pass_gettime cyclock__slow \
		timeline_or_past counter_slow
	one_page "preload data" "$preload" cyclock__mono
	# Its clock_gettime() loads no data but the timeline's (the served
	# mask is on its first line): no RIP-relative reference to another.
	others=$(code_of "$("$objdump" -d --no-show-raw-insn "$preload")" clock_gettime |
		grep -o '# [0-9a-f]* <[^>]*>' | grep -v '<cyclock__mono>$' || true)
	[[ -z $others ]] || { echo "preload: clock_gettime loads $others"; fail=1; }
fi
((fail == 0)) || exit 1
echo "read_pages: the read path's code on one page, its data on one, in ${preload:+the preload and }libcyclock.so"
