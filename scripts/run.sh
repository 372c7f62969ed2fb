#!/usr/bin/env bash
# Builds and runs `compare`. With no arguments: the default comparison (every family at its
# default types and sizes). Arguments go to compare (see `scripts/run.sh --help`). The build is
# configured as test.sh configures it, so after test.sh nothing is compiled again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/configure.sh >&2
exec "${BUILD_DIR:-build}/compare" "$@"
