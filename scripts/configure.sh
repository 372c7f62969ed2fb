#!/usr/bin/env bash
# Configures and builds into ${BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
# run.sh and test.sh both come through here and configure the same way (Release, warnings as
# errors), so whichever runs second reuses the first one's build instead of compiling it again.
# KL_WERROR=OFF (environment) builds without -Werror, for a compiler that warns where ours does not.
# BUILD_TARGET: build that target only. KL_SKIP_DEPS=1: skip scripts/deps.sh (a prepared machine).
# The one configure line: scripts/device.sh and device-common.sh come through here too.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${KL_SKIP_DEPS:-0}" = 1 ] || bash scripts/deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
build="${BUILD_DIR:-build}"
# Configure quietly, but say which GPUs the build is for (and everything when configure fails).
log="$(mktemp)"
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKL_WERROR="${KL_WERROR:-ON}" "$@" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
grep -E "^-- CUDA architectures" "$log" | sed 's/^-- /configure: /' >&2 || true
rm -f "$log"
cmake --build "$build" -j "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
