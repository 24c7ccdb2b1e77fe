#!/usr/bin/env bash
# Proves the engine (src/core) is freestanding: it includes only the four
# allowed standard headers and our own, and once compiled with
# -ffreestanding -nostdlib and linked into one relocatable object, the only
# symbols it needs from outside are compiler-runtime helpers.
#
#   freestanding.sh host  SRC WORK CC   the host, in the normal and the
#                                       CYCLOCK_SPLIT_U64 layout
#   freestanding.sh cross SRC WORK      i386 (gcc -m32), Cortex-M4 and
#                                       AArch64 (clang), where available
# Exit 0 on success, 1 on failure, 77 (skipped) if no cross compiler works.
set -euo pipefail

mode=$1 src=$2 work=$3
shopt -s nullglob
core_c=("$src"/src/core/*.c)
if ((${#core_c[@]} == 0)); then
	echo "FAIL: no sources in $src/src/core" >&2
	exit 1
fi

# Compiler-runtime helpers (libgcc, compiler-rt) a freestanding target has.
# AArch64 compilers that default to -moutline-atomics (Debian's) call
# libgcc's __aarch64_<op><size>_<order> for every atomic read-modify-write.
allowed='^(__aeabi_(uldivmod|ldivmod|uidivmod|idivmod|uidiv|idiv|lmul|llsl|llsr|lasr|lcmp|ulcmp)|__udivdi3|__umoddi3|__divdi3|__moddi3|__udivmoddi4|__ashldi3|__lshrdi3|__muldi3|__popcount.*|__clz.*|__ctz.*|__aarch64_(cas|swp|ldadd|ldclr|ldeor|ldset)(1|2|4|8|16)_(relax|acq|rel|acq_rel)|_GLOBAL_OFFSET_TABLE_)$'
# -fno-stack-protector: some distributions' compilers enable it by default,
# which would reference __stack_chk_fail (a libc symbol) from any function
# with a local array.  Firmware builds turn it off the same way.
cflags=(-std=c11 -ffreestanding -nostdlib -fno-builtin -fno-stack-protector -O2
	-I"$src/include" -Werror -Wall -Wextra)

# Prints "file: line" for each #include of @file that is not allowed, and
# the paths of the tree's own headers it includes on fd 3.
scan_includes() {
	local file=$1 dir line name
	local re='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"]'
	dir=$(dirname "$file")
	while IFS= read -r line; do
		# deps.h: firmware may name its own replacement of deps.h;
		# atomic.h: a build its own atomics (the model checker's).
		[[ $line =~ include[[:space:]]+CYCLOCK_(DEPS|ATOMIC)_HEADER ]] && continue
		if [[ $line =~ $re ]]; then
			name=${BASH_REMATCH[1]}
			case $name in
			stdint.h | stddef.h | stdbool.h | stdatomic.h) continue ;;
			esac
			if [[ $line == *'"'* && -f $dir/$name ]]; then
				echo "$dir/$name" >&3
				continue
			elif [[ -f $src/include/$name ]]; then
				echo "$src/include/$name" >&3
				continue
			fi
		fi
		echo "$file: $line"
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$file" || true)
}

# Follows the includes of the engine's sources and public headers.
check_includes() {
	local -A seen=()
	local queue=("${core_c[@]}" "$src"/src/core/*.h)
	local h bad=() f
	for h in core.h deps.h latch.h; do
		[[ -f $src/include/cyclock/$h ]] && queue+=("$src/include/cyclock/$h")
	done
	while ((${#queue[@]})); do
		f=$(realpath "${queue[0]}")
		queue=("${queue[@]:1}")
		[[ -n ${seen[$f]:-} ]] && continue
		seen[$f]=1
		local found
		found=$(scan_includes "$f" 3>"$work/quoted") || return 1
		[[ -n $found ]] && bad+=("$found")
		mapfile -t -O "${#queue[@]}" queue <"$work/quoted"
	done
	if ((${#bad[@]})); then
		echo "FAIL: the engine includes headers other than <stdint.h> <stddef.h>" \
			"<stdbool.h> <stdatomic.h> and its own:"
		printf '%s\n' "${bad[@]}" | sed 's/^/  /'
		return 1
	fi
	echo "ok   includes: ${#seen[@]} files include only the allowed headers"
}

# The undefined symbols of the objects in @1 taken together: those of
# their -r link if the compiler can link for the target (ld.lld may be
# missing for clang's cross targets), else the objects' undefined symbols
# that no object defines, which is the same set.  GNU nm reads any ELF.
undefined_symbols() {
	local dir=$1 cc=$2
	shift 2
	if $cc "$@" -nostdlib -r -o "$dir/core.o" "$dir"/obj/*.o 2>/dev/null; then
		nm -u "$dir/core.o" | awk '{ print $NF }' | sort -u
	else
		comm -23 <(nm -A -u "$dir"/obj/*.o | awk '{ print $NF }' | sort -u) \
			<(nm -A -g --defined-only "$dir"/obj/*.o | awk '{ print $NF }' | sort -u)
	fi
}

# build_target NAME CC [FLAGS...]: compiles every engine source, links
# them and lists the undefined symbols that are not allowed.
build_target() {
	local name=$1 cc=$2
	shift 2
	local dir=$work/$name c undef
	rm -rf "$dir"
	mkdir -p "$dir/obj"
	for c in "${core_c[@]}"; do
		if ! $cc "${cflags[@]}" "$@" -c "$c" -o "$dir/obj/$(basename "$c" .c).o"; then
			echo "FAIL [$name]: $c does not compile freestanding ($cc ${cflags[*]} $*)"
			return 1
		fi
	done
	undef=$(undefined_symbols "$dir" "$cc" "$@" | grep -Ev "$allowed" || true)
	if [[ -n $undef ]]; then
		echo "FAIL [$name]: the engine needs symbols from outside (libc, libatomic...):"
		printf '  %s\n' "${undef//$'\n'/$'\n'  }"
		return 1
	fi
	echo "ok   $name: ${#core_c[@]} files, no undefined symbol beyond compiler helpers"
}

# Whether @cc with @flags compiles a freestanding unit.
can_compile() {
	local cc=$1
	shift
	command -v "$cc" >/dev/null &&
		echo 'int f(void); int f(void) { return 0; }' |
		$cc "$@" -ffreestanding -x c -c -o /dev/null - 2>/dev/null
}

# cross NAME CC FLAGS...: one cross target, skipped if @cc cannot build it.
cross() {
	local name=$1 cc=$2
	shift 2
	if can_compile "$cc" "$@"; then
		ran=1
		build_target "$name" "$cc" "$@" || status=1
	else
		echo "skip $name: $cc $* unavailable"
	fi
}

mkdir -p "$work"
status=0
case $mode in
host)
	cc=$4
	check_includes || status=1
	build_target host "$cc" || status=1
	build_target host-split "$cc" -DCYCLOCK_SPLIT_U64 || status=1
	;;
cross)
	ran=0
	# -Wno-psabi: GCC notes that i386 _Atomic uint64_t alignment changed
	# in GCC 11; the engine pins it with _Alignas(8).
	cross i386 gcc -m32 -Wno-psabi
	cross cortex-m4 clang --target=thumbv7m-none-eabi -mcpu=cortex-m4 -mthumb
	# GCC may call memset/memcpy even freestanding: this catches it.
	cross cortex-m3-gcc arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os
	cross aarch64 clang --target=aarch64-none-elf
	((ran)) || exit 77
	;;
*)
	echo "usage: $0 host|cross SRC WORK [CC]" >&2
	exit 2
	;;
esac
exit $status
