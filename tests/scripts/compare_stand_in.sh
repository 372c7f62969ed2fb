#!/bin/sh
# A stand-in for `compare` in a -DKL_DIFF_ONLY build (no runner there): serves `compare diff ...`
# with the compare-diff given as the first argument, so tests/host/test_diff.cpp runs without CUDA.
#   compare_stand_in.sh PATH/TO/compare-diff diff OLD NEW [options]
exe="$1"
shift
if [ "$1" != diff ]; then
  echo "compare_stand_in.sh: only 'compare diff' is served in a diff-only build" >&2
  exit 99
fi
shift
exec "$exe" "$@"
