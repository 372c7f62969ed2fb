#!/usr/bin/env bash
# Writes a folder of N submissions, as a class of students would hand in, for measuring how long
# grading a folder takes: copies of the examples (alice's and bob's sums, carol's matrix-vector
# product) and of the red team's honest product, one per sub-folder, student01 ... studentN.
#   scripts/make-class.sh N DIR
set -euo pipefail
n=${1:?usage: make-class.sh N DIR}
dir=${2:?usage: make-class.sh N DIR}
src="$(cd "$(dirname "$0")/.." && pwd)"
sources=("$src/examples/user_kernels/alice/reduce_warp_atomic.cu" "$src/examples/user_kernels/bob/reduce_shared_tree.cu"
         "$src/examples/user_kernels/carol/gemv_warp_per_row.cu" "$src/tests/redteam/honest_gemm/gemm.cu")
# DIR is replaced: refuse one that holds anything but a previous class (a checkout, a home folder)
if [ -e "$dir" ] && [ -n "$(find "$dir" -mindepth 1 -maxdepth 1 ! -name 'student[0-9]*' -print -quit)" ]; then
  echo "make-class.sh: $dir holds something other than student folders; give a new or a class folder" >&2
  exit 2
fi
rm -rf "$dir"
for i in $(seq 1 "$n"); do
  s=$(printf "student%02d" "$i")
  mkdir -p "$dir/$s"
  cp "${sources[$(( (i - 1) % ${#sources[@]} ))]}" "$dir/$s/"
done
echo "$n submissions in $dir"
