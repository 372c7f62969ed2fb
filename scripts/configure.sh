#!/usr/bin/env bash
# Configures and builds into ${BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
# run.sh and test.sh both come through here and configure the same way (Release, warnings as
# errors), so whichever runs second reuses the first one's build instead of compiling it again.
# KL_WERROR=OFF (environment) builds without -Werror, for a compiler that warns where ours does not.
# BUILD_TARGET: build that target only. KL_SKIP_DEPS=1: skip scripts/deps.sh (a prepared machine).
# A grader build (docs/your-kernel.md): BUILD_DIR=build-grade scripts/configure.sh -DKL_LADDER=OFF
# -DKL_USER_KERNELS=/path/to/labs; -DKL_BUILD_TESTS=OFF leaves the suites out of a full build.
# The one configure line: scripts/device.sh and device-common.sh come through here too.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${KL_SKIP_DEPS:-0}" = 1 ] || bash scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
build="${BUILD_DIR:-build}"
first=1
[ -f "$build/CMakeCache.txt" ] && first=0
# Configure quietly, but say which GPUs a new build is for (and everything when configure fails).
log="$(mktemp)"
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKL_WERROR="${KL_WERROR:-ON}" "$@" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
[ "$first" = 0 ] || grep -E "^-- CUDA architectures" "$log" | sed 's/^-- /configure: /' >&2 || true
rm -f "$log"
# The build's own lines, less those it prints when there is nothing to do (a target up to date,
# the git commit read again, the dependency scan), so a build that compiles nothing says nothing
# and run.sh's first line is compare's own. What compiles, warns or fails is shown as it comes.
quiet='^(\[ *[0-9]+%\] (Built target |reading the git commit|the submissions of KL_USER_KERNELS)|Consolidate compiler generated dependencies of target |ninja: no work to do)'
cmake --build "$build" -j "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"} 2>&1 | { grep --line-buffered -Ev "$quiet" || true; }
