#!/usr/bin/env bash
# Builds (warnings as errors, the same configuration as run.sh: neither recompiles the other's
# build) and runs the tests with ctest. On a machine without a GPU the host suite runs and the
# GPU suite is reported as Skipped (ctest), never Passed; the last line then says why.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh
build="${BUILD_DIR:-build}"
status=0
ctest --test-dir "$build" --output-on-failure || status=$?
# ctest prints a skipped test's output only with -V: name each skipped test's reason here, from
# the line it printed ("NAME: SKIPPED: why") in ctest's log.
log="$build/Testing/Temporary/LastTest.log"
if [ -f "$log" ]; then
  grep -h '^[A-Za-z_]*: SKIPPED: ' "$log" | sort -u | sed 's/^\([A-Za-z_]*\): SKIPPED: /test.sh: \1 was skipped: /' || true
fi
exit "$status"
