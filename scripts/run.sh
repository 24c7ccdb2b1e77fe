#!/usr/bin/env bash
# The main job: builds the demo in build/release and runs it.
#   scripts/run.sh [DEMO ARGUMENTS...]
# Build output goes to stderr, so stdout is the demo's alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cyclock_ensure_deps cmake cc make
build=$CYCLOCK_ROOT/build/release
{
	cmake -S "$CYCLOCK_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCYCLOCK_BUILD_EXAMPLES=ON
	cmake --build "$build" -j "$CYCLOCK_JOBS" --target cyclock-demo
} >&2
exec "$build/examples/cyclock-demo" "$@"
