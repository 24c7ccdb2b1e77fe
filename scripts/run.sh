#!/usr/bin/env bash
# The main job: builds the cyclock tool in build/release and runs it on
# its default ("info", then "bench --quick").
#   scripts/run.sh [CYCLOCK ARGUMENTS...]
# Build output goes to stderr, so stdout is the tool's alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cyclock_ensure_deps cmake cc make pkg-config jansson
build=$CYCLOCK_ROOT/build/release
{
	cmake -S "$CYCLOCK_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCYCLOCK_BUILD_TOOL=ON
	cmake --build "$build" -j "$CYCLOCK_JOBS" --target cyclock
} >&2
exec "$build/tools/cyclock/cyclock" "$@"
