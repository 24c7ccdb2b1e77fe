#!/usr/bin/env bash
# bench/, the tool's measuring library, knows no program name: it says its
# errors through bench_error() (bench/error.c), which the tool points at
# its own "cyclock: " line.  So no other object of it may write to stderr
# itself (fprintf(stderr, ...), perror(), warn()), except runtime.c's
# progress line, which the tool words.
#   bench_errors.sh NM OBJECT...  (an OBJECT argument may be a ;-list of them)
set -euo pipefail

nm=$1
shift
set -f
IFS=';'
set -- $*
IFS=$' \t\n'
set +f
status=0
for o in "$@"; do
	case $o in
	*/error.c.o | */runtime.c.o) continue ;;
	esac
	bad=$("$nm" --undefined-only "$o" | awk '{ print $NF }' |
		grep -E '^(stderr|perror|warnx?|errx?|error|error_at_line)(@.*)?$' || true)
	if [[ -n $bad ]]; then
		echo "FAIL: ${o##*.dir/} uses $(echo $bad): bench_error() is its way to say an error"
		status=1
	fi
done
((status == 0)) && echo "only bench_error() says bench/'s errors, in $# object files"
exit $status
