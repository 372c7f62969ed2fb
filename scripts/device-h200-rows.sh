#!/usr/bin/env bash
# The H200 half of issue 24 in one lent-GPU call: the 16384² rows and transpose that the H200
# left below its library (results/h200/session33/h200.md), their trials, and the profile that says
# why (docs/sgemm-ladder.md, "Every shape class"; docs/rows-and-dot.md):
#   scripts/device-h200-rows.sh OUTDIR TAG [CMAKE_ARGS...]
# Exits 3 with one line unless the GPU is an H200 (REQUIRE_GPU=any runs it on any GPU, e.g. to
# try the script on an H100). Builds as device-common.sh does (or BIN_DIR: compare and
# tests/gpu_suite built elsewhere for this GPU), then:
#   trials   scripts/trials/h200_misses_trial.cu (transpose tiles and thread rows, column chunk
#            counts), cols_cluster_trial.cu (rows_cols_cluster's chunk counts at 19 shapes),
#            transpose_order_trial.cu (tile orders) and transpose_vec_tile_trial.cu (the 64-wide
#            tile with 8- and 16-byte accesses), each built with nvcc -arch=sm_90 (TRIALS_DIR:
#            prebuilt executables named h200_misses, cols_cluster, transpose_order,
#            transpose_vec_tile) into
#            OUTDIR/TAG_<trial>.log
#   compare  -f rows,transpose -t float -s 16384 --axis op=col_mean,row_sum,row_max over the row,
#            column and transpose steps beyond the documents, into OUTDIR/TAG.{md,json}
#   profile  scripts/profile.py over the column and row steps, transpose6 and transpose7 at 16384², into
#            OUTDIR/ncu_TAG.{md,json}
#   suite    the GPU suite's rows and transpose cases (KL_GPU_SUITE_QUICK as set)
# Everything printed goes to OUTDIR/TAG.log.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/.."
. "$here/device-common.sh"
device_begin device-h200-rows.sh "$@"
shift 2
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
if [ "${REQUIRE_GPU:-h200}" != any ] && [[ "$gpu" != *H200* ]]; then
  echo "device-h200-rows.sh: this GPU is '${gpu:-none}', not an H200 (REQUIRE_GPU=any runs it anyway)"
  exit 3
fi
device_build "$@"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,driver_version --format=csv,noheader | tee -a "$log"
trials="${TRIALS_DIR:-$build/trials}"
mkdir -p "$trials"
for t in h200_misses cols_cluster transpose_order transpose_vec_tile; do
  t1=$SECONDS
  if [ -z "${TRIALS_DIR:-}" ] && ! nvcc -std=c++17 -O3 -I. -arch=sm_90 "scripts/trials/${t}_trial.cu" -lcublas -o "$trials/$t" > "$out/${tag}_$t.log" 2>&1; then
    say "$tag: trial $t did not build"
    continue
  fi
  timeout 300 "$trials/$t" > "$out/${tag}_$t.log" 2>&1
  say "$tag: trial $t exit $? in $((SECONDS - t1)) s"
done
t2=$SECONDS
steps='rows_cols*,rows_block*,rows_auto,transpose[4-7]*'
"$build/compare" -q -f rows,transpose -t float -s 16384 --axis op=col_mean,row_sum,row_max -v "$steps" --out "$out" --name "$tag" > "$build.compare.log" 2>&1
say "$tag: compare exit $? in $((SECONDS - t2)) s"
rm -f "$out/$tag.csv"
t3=$SECONDS
python3 scripts/profile.py --compare "$build/compare" --out "$out" --name "ncu_$tag" -- -f rows,transpose -t float -s 16384 \
  --axis op=col_mean,row_sum -v 'rows_cols_vec16,rows_cols_cluster,rows_block_*,transpose6*,transpose7*' > "$build.profile.log" 2>&1
say "$tag: profile exit $? in $((SECONDS - t3)) s"
tail -3 "$build.profile.log" | tee -a "$log"
SUITE_TC='*rows*,*transpose*' device_suite
say "$tag: done in $((SECONDS - t0)) s"
