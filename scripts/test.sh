#!/usr/bin/env bash
# Builds and runs both test suites. On a machine without a GPU the host suite runs and the
# GPU suite is reported as Skipped (ctest), never Passed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh -DKL_WERROR=ON
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure
