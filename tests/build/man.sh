#!/usr/bin/env bash
# The man pages, as installed: every page and link page renders without a
# message from mandoc -Tlint -Wstyle (and from groff -ww, where it is
# installed), and the functions the man3 pages name in their NAME sections
# are exactly the public functions of the installed headers, each with a
# link page (.so) for "man <function>".  Skipped (77) without mandoc,
# which scripts/test.sh installs.
#   man.sh SRC BUILD WORK CMAKE MANDIR
set -euo pipefail

src=$1 build=$2 work=$3 cmake=$4 mandir=$5
if ! command -v mandoc >/dev/null; then
	echo "SKIP: mandoc is not installed (apt-get install mandoc; scripts/test.sh does it)"
	exit 77
fi
prefix=$work/prefix
man=$prefix/$mandir
rm -rf "$work"
mkdir -p "$work"
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" ||
	{ cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }

# The installed pages and link pages, as paths under $man ("man3/cyclock.3").
pages=() links=()
while IFS= read -r f; do
	if [[ $(head -c 4 "$man/$f") == ".so " ]]; then
		links+=("$f")
	else
		pages+=("$f")
	fi
done < <(cd "$man" && find . -type f -name '*.[0-9]' | sed 's|^\./||' | sort)
for f in "$src"/docs/man/*.3; do
	[[ -e $man/man3/${f##*/} ]] || fail "not installed: man3/${f##*/}"
done
# cyclock.1 is installed with the tool; lint the tree's without it.
[[ -e $man/man1/cyclock.1 ]] || pages+=("$src/docs/man/cyclock.1")
lint=("${pages[@]}" "${links[@]}")

# (a) No message from mandoc on a page, nor from groff on a page or a link
# page, which it resolves from the man directory as man(1) does.  mandoc
# warns of every .so ("fragile, better use ln(1)"), so a link page is
# checked to be that one line, naming a page that is installed.
for f in "${links[@]}"; do
	target=$(sed -n '1s/^\.so //p' "$man/$f")
	[[ $(wc -l <"$man/$f") == 1 && $target == man3/*.3 && -e $man/$target ]] ||
		fail "link page $f is not one .so line naming an installed page: $(head -c 80 "$man/$f")"
done
for f in "${lint[@]}"; do
	if [[ " ${links[*]} " != *" $f "* ]]; then
		msg=$(cd "$man" && mandoc -Tlint -Wstyle "$f" 2>&1) || true
		[[ -z $msg ]] || fail "mandoc -Tlint -Wstyle: $f:"$'\n'"$msg"
	fi
	if command -v groff >/dev/null; then
		msg=$(cd "$man" && groff -t -ww -z -man "$f" 2>&1) || true
		[[ -z $msg ]] || fail "groff -ww: $f:"$'\n'"$msg"
	fi
done
((status == 0)) &&
	echo "ok   ${#pages[@]} pages lint-free (mandoc -Tlint -Wstyle), ${#links[@]} link pages"

# (b) Coverage.  Public: the CYCLOCK_API functions and the static inline
# ones (cyclock_read_inline()) of cyclock.h and cyclock/*.h whose names do
# not start with cyclock__ (the inline readers' internals).  The arch/
# headers are the porting hooks of docs/porting.md, not this API.
public=$(cat "$prefix/include/cyclock.h" "$prefix"/include/cyclock/*.h |
	grep -E '^(CYCLOCK_API|static inline) ' |
	grep -oE '\bcyclock_[a-z0-9][a-z0-9_]*\(' | tr -d '(' | sort -u)
[[ -n $public ]] || fail "no public function found in $prefix/include"
# Documented: the names of the man3 pages' NAME sections, up to the "\-".
named=""
for f in "${pages[@]}"; do
	[[ $f == man3/* ]] || continue
	names=$(awk '/^\.SH/ { on = ($2 == "NAME"); next } on && !/^\./' "$man/$f" |
		sed 's/\\-.*//' | tr ',' '\n' | tr -d ' ' | grep -E '^cyclock_' || true)
	named+=$names$'\n'
done
named=$(sort <<<"${named%$'\n'}" | sed '/^$/d')
dups=$(uniq -d <<<"$named")
[[ -z $dups ]] || fail "named by more than one page: $(tr '\n' ' ' <<<"$dups")"
named=$(sort -u <<<"$named")
missing=$(comm -23 <(echo "$public") <(echo "$named"))
extra=$(comm -13 <(echo "$public") <(echo "$named"))
[[ -z $missing ]] || fail "public but in no man page's NAME: $(tr '\n' ' ' <<<"$missing")"
[[ -z $extra ]] || fail "in a man page's NAME but not public: $(tr '\n' ' ' <<<"$extra")"
# Each documented function is a page or a link page to the page naming it.
for fn in $named; do
	[[ -e $man/man3/$fn.3 ]] || { fail "no man3/$fn.3: 'man $fn' finds nothing"; continue; }
	target=$(sed -n 's/^\.so //p' "$man/man3/$fn.3")
	[[ -z $target ]] && continue
	awk '/^\.SH/ { on = ($2 == "NAME"); next } on' "$man/$target" 2>/dev/null |
		grep -qE "(^|[ ,])$fn([ ,]|$)" || fail "man3/$fn.3 links to $target, which does not name it"
done
for f in "${links[@]}"; do
	fn=${f#man3/}
	fn=${fn%.3}
	grep -qx "$fn" <<<"$named" || fail "link page $f names no documented function"
done
((status == 0)) &&
	echo "ok   $(wc -l <<<"$public") public functions, each named by a man3 page and found by man"
exit $status
