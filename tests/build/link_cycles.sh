#!/usr/bin/env bash
# No two object files of the library (src/), the tool (tools/cyclock/)
# and its measuring library (bench/) call each other in a loop: for every
# pair of objects A and B, not both "A uses a symbol B defines" and "B
# uses one A defines", nor any longer loop.  An entry file that doubles as
# a library of helpers is what makes such loops (main.c's tool_error()
# called back by the commands it dispatches to; init.c's cyclock_init(),
# which started the coarse ticker that reads the clock that initialises);
# helpers belong in files of their own, and state every file shares in
# one of its own (src/linux/shared.c).
#   link_cycles.sh NM ROOT OBJECT...  (ROOT: the part of their paths not to show;
#   an OBJECT argument may be a ;-list of them)
set -euo pipefail

nm=$1 root=$2
shift 2
# CMake passes $<TARGET_OBJECTS:...> as one argument, a ;-list.
set -f
IFS=';'
set -- $*
IFS=$' \t\n'
set +f
declare -A def
for o in "$@"; do
	while read -r sym; do def[$sym]=$o; done < <("$nm" --defined-only -g "$o" | awk 'NF == 3 { print $3 }')
done
edges=$(for o in "$@"; do
	"$nm" --undefined-only -g "$o" | awk '{ print $NF }' | while read -r sym; do
		t=${def[$sym]:-}
		if [[ -n $t && $t != "$o" ]]; then echo "${o#"$root"/} ${t#"$root"/}"; fi
	done
done | sort -u)
# tsort reports a loop as "tsort: -: input contains a loop:", then its members.
if ! loops=$(tsort <<<"$edges" 2>&1 >/dev/null) || [[ -n $loops ]]; then
	echo "FAIL: object files that call each other in a loop:"
	echo "$loops" | sed -n 's/^tsort: //p'
	echo "the calls between them:"
	echo "$edges"
	exit 1
fi
echo "no loop among $# object files"
