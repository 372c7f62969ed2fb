#!/usr/bin/env bash
# The one device script: on a GPU machine, regenerates results/<gpu>/ (or OUT) stage by stage.
#   scripts/device.sh [STAGE...]        (default: build suites sanitize default shapes ladders
#                                        families scan scan_sanitize scan_2p31 profiles walkthrough;
#                                        `all`: those and gemm_auto, gemm_auto_fresh,
#                                        gemm_ragged, gemm_auto_sanitize, gemm13_fill,
#                                        profile_behind, grading, judging: the whole of a
#                                        one-GPU folder)
# Stages, each optional, each writing the files results/README.md lists; each stage first deletes
# the files OUT/MANIFEST.json lists for it, then records each file it writes there (stage, command
# line, commit, date, card: scripts/results_manifest.py), so a rerun leaves none of its old files:
#   build     scripts/configure.sh into BUILD_DIR (default build/; the one configure line; BIN_DIR:
#             use executables built elsewhere for this GPU -- compare, host_suite, gpu_suite --
#             and build nothing)
#   suites    the host suite and the GPU suite                        -> gpu_suite_full.log
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck over the GPU suite's quick pass
#             (KL_GPU_SUITE_QUICK=2)                                   -> sanitize_summary.txt
#   default   compare's default run                                   -> default.{md,json.gz}
#   shapes    every shape class (--sizes shapes) over the last steps  -> shapes.{md,json.gz,log}
#   ladders   the SGEMM and DGEMM ladders, the gemm targets           -> sgemm_ladder.*, dgemm_ladder.*,
#                                                                        gemm_targets.*
#   families  document 003's sizes, the dot types, every rows op, transpose7's sizes, the last
#             reduce steps at 2^28 and at odd sizes, document 001's bank modes
#                                                                     -> matvec_003.*, dot_types.*,
#                                                                        rows_all_ops.*, transpose7*.*,
#                                                                        reduce_2p28.*, reduce_odd.*,
#                                                                        bank_mode_{4,8}.*
#   scan      the scan ladder beside CUB and Thrust at 2^28 int and float, both forms, and odd
#             sizes; Nsight Compute over the last steps and CUB's (docs/scan.md)
#                                                                     -> scan.{md,json.gz},
#                                                                        ncu_scan.{md,json}
#   scan_sanitize  compute-sanitizer over the GPU suite's scan cases  -> sanitize_scan.txt
#   scan_2p31_int, scan_2p31_float, scan_2p31_double (scan_2p31: the three)
#             every scan step at 2^31 + 7 elements (64-bit indices) in that type, both forms: one
#             stage a type, as each one's validation (tens of GB on the host) takes minutes, and a
#             lent machine runs one command for ten at most
#                                                                     -> scan_2p31_<type>.{md,json.gz}
#   gemm13_fill  gemm13's ring filled by TMA against the same ring filled by cp.async (the ragged
#             ablation) beside gemm12 and cuBLAS, aligned and odd shapes (TMA on padded copies);
#             compute-sanitizer over the GPU suite's cases that run the ragged and padded forms
#             (docs/sgemm-ladder.md, "gemm13 without TMA", "gemm13 for every alignment")
#                                                                     -> gemm13_fill.{md,json},
#                                                                        sanitize_gemm13_ragged.txt
#   profiles  Nsight Compute over the steps docs/ explain (the gemm ladders with --compute)
#                                                                     -> ncu_*.{md,json}
#   profile_behind  Nsight Compute (--compute) over the rules' shapes gemm_auto is still below
#             cuBLAS on (at most four a type, read off OUT's gemm_auto_rules_<type> reports), the
#             fastest listed step at each beside the library's kernel
#                                                       -> ncu_gemm_behind_{float,double}.{md,json}
#   gemm_auto gemm_auto's measured choice against every listed step, one file per type (float,
#             double): the rules' 26 shapes, two sweeps of 42 odd shapes (scripts/gemm_sweep.py 402
#             42, 403 42), every shape class; the DGEMM squares, mid-size float products (gemm13's
#             stream-K)                          -> gemm_auto_rules_{float,double}.*, gemm_auto_sweep_{b,c}_{float,double}.*,
#                                                   gemm_shapes_{float,double}.*, gemm_mid.*, dgemm_squares.*
#   gemm_auto_fresh  the same against two further sweeps of 42 odd shapes per type, drawn by the
#             same generator after the rules last changed (scripts/gemm_sweep.py 404 42, 405 42):
#             shapes the rules were not written from      -> gemm_auto_sweep_{d,e}_{float,double}.*
#   gemm_ragged  the 16 ragged products (N or K not a whole number of 16-byte vectors) furthest below
#             cuBLAS in OUT's gemm_auto and gemm_auto_fresh reports, each beside its aligned neighbour
#             (scripts/gemm_ragged_pairs.py list; its `cost` reads the result), per type
#                                                         -> gemm_ragged_{float,double}.*
#   gemm_auto_sanitize  compute-sanitizer over the GPU suite's case that runs every step gemm_auto's
#             tune measures, split or not                 -> sanitize_gemm_auto.txt
#   allreduce (2+ GPUs; OUT defaults to results/<gpu>x<N>) the suite's all-reduce cases, the
#             ladder against NCCL cold and warm (--ops), a fault, the sanitizer
#                                                                     -> allreduce_*.{md,json.gz},
#                                                                        allreduce_suite.log,
#                                                                        allreduce_sanitize.txt, topo.txt
#   plots     scripts/plot_compare.py over OUT's reports              -> plots/*.png
#             (not in the default list: the pictures are drawn from the reports, anywhere)
#   walkthrough  docs/your-kernel.md's graded example (the examples' reduce kernels at n = 1000,
#             1000003), then the whole class with --variants naming every student (each one
#             must get a row)                                   -> walkthrough.{md,summary.md,log},
#                                                                  walkthrough-class.{md,summary.md,log}
#   grading   scripts/device-grading.sh (outside submissions: docs/your-kernel.md; GRADING_STAGES:
#             its stages, default all but multi)
#   judging   scripts/device-judging.sh (compare diff's false alarms: docs/judging-progress.md)
# OUT: where the files go (default results/<gpu>, <gpu> the first GPU's name in lower case without
# the vendor and memory, e.g. h100, h200). STAGE_TIMEOUT: seconds one step may take (default
# 1500). COMPARE_EXTRA: options added to every compare run (e.g. "--max-time 0.1" for a first look).
# Exit status 0 when every step exited 0. Run it from a checkout; commit what lands in OUT (with
# its MANIFEST.json) and results/README.md, which the script regenerates when OUT is under results/.
set -uo pipefail
cd "$(dirname "$0")/.."
stages="${*:-build suites sanitize default shapes ladders families scan scan_sanitize scan_2p31 profiles walkthrough}"
[ "$stages" != all ] || stages="build suites sanitize default gemm_auto gemm_auto_fresh gemm_ragged gemm_auto_sanitize gemm13_fill shapes ladders families scan scan_sanitize scan_2p31 profiles profile_behind walkthrough grading judging"
stages=" $stages "
stages="${stages// scan_2p31 / scan_2p31_int scan_2p31_float scan_2p31_double }"
has() { [[ " $stages " == *" $1 "* ]]; }
export PATH="$PATH:/usr/local/cuda/bin"
build="${BUILD_DIR:-build}"
bin="${BIN_DIR:-$build}"
# The suites where a build folder has them (tests/), or beside compare (a BIN_DIR of executables).
suite="$bin/tests/gpu_suite"; [ -x "$suite" ] || suite="$bin/gpu_suite"
host_suite="$bin/tests/host_suite"; [ -x "$host_suite" ] || host_suite="$bin/host_suite"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr 'A-Z' 'a-z' |
      sed -e 's/^nvidia //' -e 's/ .*//')
if [ -z "${OUT:-}" ] && has allreduce && [ "$gpus" -ge 2 ]; then out="results/${gpu:-gpu}x$gpus"; else out="${OUT:-results/${gpu:-gpu}}"; fi
mkdir -p "$out"
status=0
stage=""
begin() {  # begin STAGE: the stage's files of the last run leave OUT (and its manifest)
  stage=$1
  python3 scripts/results_manifest.py begin "$out" "$stage"
}
record() {  # record CMD FILE...: FILEs (under OUT; missing ones skipped) written by this stage's CMD
  local cmd=$1; shift
  python3 scripts/results_manifest.py record "$out" "$stage" "$cmd" "$@"
}
step() {  # step LOG CMD...: the output into LOG (under OUT), its tail on the console
  local name=$1; shift
  echo "=== $name: $*"
  local t0=$SECONDS
  # SIGINT first: compare then writes the rows it measured, marked incomplete
  timeout -s INT -k 30 "${STAGE_TIMEOUT:-1500}" "$@" > "$out/$name" 2>&1
  local rc=$?
  tail -n 15 "$out/$name"
  echo "=== $name: exit $rc in $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || status=1
  return $rc
}
report() {  # report NAME json|gz ARGS...: compare -q ARGS into OUT/NAME.{md,json[.gz],csv}
  local name=$1 form=$2; shift 2
  set -f  # the -v patterns are compare's globs, not the shell's
  # shellcheck disable=SC2086
  step "$name.log" "$bin/compare" -q "$@" --out "$out" --name "$name" ${COMPARE_EXTRA:-}
  set +f
  if [ "$form" = gz ]; then gzip -9 -n -f "$out/$name.json"; rm -f "$out/$name.csv"; fi
  [ "$name" = shapes ] || rm -f "$out/$name.log"  # shapes.log keeps the console table
  record "compare -q $* --out $out --name $name ${COMPARE_EXTRA:-}" \
    "$out/$name.md" "$out/$name.json" "$out/$name.json.gz" "$out/$name.csv" "$out/$name.log"
}
sanitize() {  # sanitize SUMMARY LOG ARGS...: compute-sanitizer's three tools over ARGS (its options, then
  # the program and its arguments), one line each into OUT/SUMMARY; a failing tool's log stays as OUT/LOG_TOOL.log.
  # SANITIZE_SIDE_BY_SIDE=1: the three run at once, as three processes on the one GPU (the tools slow
  # kernels many times over, racecheck most: together they take about the slowest one's time)
  local summary=$1 log=$2; shift 2
  : > "$out/$summary"
  local tool rc pids=()
  if [ "${SANITIZE_SIDE_BY_SIDE:-0}" = 1 ]; then
    for tool in memcheck racecheck synccheck; do
      step "${log}_$tool.log" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" > "$out/${log}_$tool.console" 2>&1 &
      pids+=($!)
    done
  fi
  for tool in memcheck racecheck synccheck; do
    if [ ${#pids[@]} -gt 0 ]; then
      wait "${pids[0]}"; rc=$?; pids=("${pids[@]:1}")
      cat "$out/${log}_$tool.console"; rm -f "$out/${log}_$tool.console"
      [ "$rc" -eq 0 ] || status=1
    else
      step "${log}_$tool.log" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@"; rc=$?
    fi
    echo "$tool: exit $rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' "$out/${log}_$tool.log" | tr '\n' ' ')" \
      >> "$out/$summary"
    [ "$rc" -ne 0 ] || rm -f "$out/${log}_$tool.log"
    record "compute-sanitizer --tool $tool --error-exitcode 9 $*" "$out/${log}_$tool.log"
  done
  record "compute-sanitizer --tool {memcheck,racecheck,synccheck} --error-exitcode 9 $*" "$out/$summary"
}
profile() {  # profile NAME [--compute] ARGS...: scripts/profile.py into OUT/NAME.{md,json}
  local name=$1 opts=(); shift
  if [ "${1:-}" = --compute ]; then opts=(--compute); shift; fi
  step "$name.log" python3 scripts/profile.py "${opts[@]}" --compare "$bin/compare" --out "$out" --name "$name" -- "$@"
  rm -f "$out/$name.log"
  record "scripts/profile.py ${opts[*]} -- $*" "$out/$name.md" "$out/$name.json"
}

if has build && [ -z "${BIN_DIR:-}" ]; then
  step build.log bash scripts/configure.sh ${KL_CMAKE_ARGS:-} && rm -f "$out/build.log"
fi
# The commit every file of this run is recorded at: the one the executables were built from (what
# a report's git_commit says), not this checkout's, which may differ under BIN_DIR or in a copy
# of a working tree (scripts/results_manifest.py record).
KL_MEASURED_COMMIT=$("$bin/compare" --version 2>/dev/null) || KL_MEASURED_COMMIT=""
[[ "$KL_MEASURED_COMMIT" =~ ^[0-9a-f]{7,40}(-dirty)?$ ]] || KL_MEASURED_COMMIT=""  # an older build: no --version
export KL_MEASURED_COMMIT
if has suites; then
  begin suites
  KL_COMPARE_EXE="$bin/compare" step host_suite.log "$host_suite" && rm -f "$out/host_suite.log"
  KL_COMPARE_EXE="$bin/compare" step gpu_suite_full.log "$suite" --duration=true
  record "gpu_suite --duration=true" "$out/gpu_suite_full.log" "$out/host_suite.log"
fi
if has sanitize; then
  begin sanitize
  KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 sanitize sanitize_summary.txt sanitize \
    "$suite"
fi
if has default; then
  begin default
  report default gz
fi
ga='gemm9*,gemm1[0-4]*,gemm_thin_k,gemm_shallow_k,gemm_auto'  # gemm_auto and every step it may pick
# GEMM_AUTO_TYPES (e.g. "float"): run the gemm_auto stages for those types only, replacing their
# files and leaving the other type's, so that a change to one type's steps is measured again
# within a lent machine's per-call limit (default: both, the stage's old files deleted first)
ga_types="${GEMM_AUTO_TYPES:-float double}"
has_type() { [[ " $ga_types " == *" $1 "* ]]; }
begin_ga() {  # begin_ga STAGE: begin, or with GEMM_AUTO_TYPES only name the stage (same file names)
  if [ -z "${GEMM_AUTO_TYPES:-}" ]; then begin "$1"; else stage=$1; fi
}
if has gemm_auto; then  # docs/sgemm-ladder.md, "gemm_auto: measured, not ruled"
  begin_ga gemm_auto
  for t in $ga_types; do  # one type a call: each stays within a lent machine's per-call limit
    report "gemm_auto_rules_$t" gz -f gemm -t "$t" -s 1000x1000x1000,4097x4095x17,513x257x129,4096x4096x4096,2048x2048x2048,3001x2999x61,211x223x227,2000x3000x33,5000x700x48,1024x1024x64,1024x1024x65,8192x8192x32,300x5000x20,2500x2500x50,640x640x640,777x1333x97,3000x2000x40,6000x6000x24,1500x900x60,4000x4000x48,999x1001x33,1234x4096x56,2048x512x64,1111x2222x100,512x512x512,700x600x200 -v "$ga" --max-time 0.1
    report "gemm_auto_sweep_b_$t" gz -f gemm -t "$t" -s "$(python3 scripts/gemm_sweep.py 402 42)" -v "$ga" --max-time 0.1
    report "gemm_auto_sweep_c_$t" gz -f gemm -t "$t" -s "$(python3 scripts/gemm_sweep.py 403 42)" -v "$ga" --max-time 0.1
    report "gemm_shapes_$t" gz -f gemm -t "$t" --sizes shapes -v "$ga" --max-time 0.2
  done
  has_type double && report dgemm_squares gz -f gemm -t double -s 2048,3000,4096,6000,8192 -v 'gemm11*128x128*_pf*,gemm14*,gemm_auto'
  has_type float && report gemm_mid gz -f gemm -t float -s 1500x1500x1500,1536x1536x1536,2500x2500x2500,3000x3000x3000,1200x1800x2000,2000x1500x1000,1000x1000x1000 -v "$ga" --max-time 0.1
fi
if has gemm_auto_fresh; then  # docs/sgemm-ladder.md, "gemm13 for every alignment"
  begin_ga gemm_auto_fresh
  for t in $ga_types; do
    report "gemm_auto_sweep_d_$t" gz -f gemm -t "$t" -s "$(python3 scripts/gemm_sweep.py 404 42)" -v "$ga" --max-time 0.1
    report "gemm_auto_sweep_e_$t" gz -f gemm -t "$t" -s "$(python3 scripts/gemm_sweep.py 405 42)" -v "$ga" --max-time 0.1
  done
fi
if has gemm_ragged; then  # docs/sgemm-ladder.md, "gemm13 for every alignment": what ragged rows cost
  begin_ga gemm_ragged
  # Read off OUT's gemm_auto and gemm_auto_fresh reports: the 16 ragged products furthest below the
  # library, each beside its aligned neighbour, every step gemm_auto may pick in one run.
  for t in $ga_types; do
    sweeps=("$out/gemm_auto_rules_$t.json.gz" "$out"/gemm_auto_sweep_{b,c,d,e}_"$t".json.gz)
    for f in "${sweeps[@]}"; do [ -f "$f" ] || { echo "=== gemm_ragged: no $f (the gemm_auto stages write it)"; status=1; continue 2; }; done
    if ! pairs=$(python3 scripts/gemm_ragged_pairs.py list --worst 16 "${sweeps[@]}"); then status=1; continue; fi
    if [ -z "$pairs" ]; then echo "=== gemm_ragged: $t: no ragged product below the library"; continue; fi
    report "gemm_ragged_$t" gz -f gemm -t "$t" -s "$pairs" -v "$ga" --max-time 0.1
  done
fi
if has gemm_auto_sanitize; then  # docs/sgemm-ladder.md, "Split-K without the reduction's launch gap"
  begin gemm_auto_sanitize
  # Every step gemm_auto's tune measures at products of few tiles and deep k, split or not, once each.
  KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 sanitize sanitize_gemm_auto.txt \
    sanitize_gemm_auto "$suite" -tc='*every step tune measures*'
fi
if has shapes; then  # the last steps of each ladder at every shape class (docs/sgemm-ladder.md)
  begin shapes
  report shapes gz -f gemm,aat,table,gevm,rows,transpose --sizes shapes \
    -v 'gemm1[0-4]*,gemm_thin_k,gemm_shallow_k,gemm_auto,gemm11*,aat_tri*,table*,gevm[56]*,rows_*,transpose[4-7]*'
fi
if has ladders; then  # docs/sgemm-ladder.md
  begin ladders
  report sgemm_ladder gz -f gemm -t float -s 2048,4096,8192 \
    -v 'gemm_smem5_ilp4,gemm6*,gemm7*,gemm8*,gemm9_pipelined_256x128x16*,gemm10_swizzled_128x256x16*,gemm12_fragment_prefetch_256x128x16*,gemm13*r232_at,gemm13*streamk,gemm_auto'
  report dgemm_ladder json -f gemm -t double -s 4096,8192 -v 'gemm_smem5*,gemm[6-9]*,gemm10*,gemm11*,gemm14*,gemm_auto'
  report gemm_targets json -f gemm -t float,double -s 2048,4096,8192,4097x4095x17,513x257x129 \
    -v 'gemm9_pipelined_128x128x16_w64x32_t8x8_s3,gemm9_pipelined_256*,gemm10*,gemm11*,gemm12*,gemm_auto'
fi
if has families; then  # docs/gemv.md, docs/rows-and-dot.md, docs/transpose-and-table.md
  begin families
  report matvec_003 gz -f gemv,gevm -t float,double -s 003
  report dot_types gz -f dot -t int,float,double -s 1000,1024,1025,2^28
  report rows_all_ops gz -f rows -t float -s 1000,2500x2000,2500x2001,16384,100003x7 \
    --axis op=row_sum,row_mean,col_mean,row_max,row_sumsq,row_min --axis layout=packed,pitched
  report transpose7 gz -f transpose -t float,double -s 16384,8192,4097x1023,1000 -v 'transpose[4-7]*'
  report transpose7_shapes gz -f transpose --sizes shapes -v 'transpose[4-7]*'
  report reduce_2p28 gz -f reduce -t float -s 2^28 -v 'reduce[7-9]*,reduce10*'
  report reduce_odd gz -f reduce -t int,float,double -s 1,33,1000003,2^24,2^28 -v 'reduce[7-9]*,reduce10*' --max-time 0.05
  # docs/bank-modes.md: document 001's 8-byte bank mode asked for, and the 4-byte one beside it
  report bank_mode_4 gz -f gemm,aat -t double -s 2048 -v 'gemm_smem[123]*,aat_smem*' --smem-bank-mode 4
  report bank_mode_8 gz -f gemm,aat -t double -s 2048 -v 'gemm_smem[123]*,aat_smem*' --smem-bank-mode 8
fi
if has scan; then  # docs/scan.md
  begin scan
  # Every step beside CUB and Thrust: 2^28 (1 GiB of int or float each way) and sizes no tile divides.
  report scan gz -f scan -t int,float -a form=inclusive,exclusive -s 2^28,1,31,33,1009,1000003
  # DRAM throughput of the last steps, cub_block_scan and cub::DeviceScan (one validation launch
  # each; the inclusive form only, as the forms differ by one shifted store, and no other library).
  profile ncu_scan -f scan -t int,float -s 2^28 -a form=inclusive --skip-library \
    -v 'scan8*,scan9*,cub_device_scan,cub_block_scan'
fi
if has scan_sanitize; then  # docs/scan.md
  begin scan_sanitize
  # Not the case that grades an outside submission: it runs compare as a child, whose kernels the
  # suite's own cases already cover, and it needs the examples' build beside a BIN_DIR.
  KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 sanitize sanitize_scan.txt sanitize_scan \
    "$suite" --source-file='*test_scan.cu' --test-case-exclude='*outside submission*'
fi
for t in int float double; do  # docs/scan.md
  has "scan_2p31_$t" || continue
  begin "scan_2p31_$t"
  # 2^31 + 7: 64-bit indices in every step (validated and timed briefly; the device memory check
  # skips it where it does not fit).
  report "scan_2p31_$t" gz -f scan -t "$t" -a form=inclusive,exclusive -s 2147483655 --max-time 0.05
done
if has gemm13_fill; then  # docs/sgemm-ladder.md, "gemm13 without TMA"
  begin gemm13_fill
  # Square and deep shapes where TMA describes the operands (the same tile and FMA warps either
  # way), and odd ones where it cannot where they lie (the TMA form reads padded copies there).
  report gemm13_fill json -f gemm -t float -s 4096,8192x8192x2048,4096x4095x4093,2048x2047x2045,6000x6001x999,1289x1284x651 \
    -v 'gemm12_fragment_prefetch_256x128x16*,gemm13*r232_at,gemm13*ragged' --max-time 0.2
  KL_COMPARE_EXE="$bin/compare" KL_GPU_SUITE_QUICK=2 KL_GPU_SUITE_SANITIZER=1 sanitize sanitize_gemm13_ragged.txt \
    sanitize_gemm13_ragged "$suite" -tc='*NaN row*,*bitwise gemm9*'
fi
if has profiles; then  # one validation launch per variant under ncu (scripts/profile.py)
  begin profiles
  profile ncu_gemm -f gemm -t double -s 2048 -v gemm11_dmma_64x64x16_s4_k8,gemm9_pipelined_128x128x8_s3
  profile ncu_sgemm --compute -f gemm -t float -s 4096 \
    -v 'gemm_smem5_ilp4,gemm6*,gemm7*,gemm8*,gemm9_pipelined_256x128x16*,gemm10_swizzled_128x256x16*,gemm12_fragment_prefetch_256x128x16*,gemm13*r232_at,gemm_auto'
  profile ncu_sgemm_gemm12 --compute -f gemm -t float -s 4096 -v 'gemm9_pipelined_128x128x16_s3,gemm9_pipelined_256x128x16_s4,gemm12*,cublas_gemm'
  profile ncu_sgemm_gemm13 --compute -f gemm -t float -s 4096 -v 'gemm13*r232_at,gemm13*r232_at_streamk,cublas_gemm'
  profile ncu_dgemm_gemm14 --compute -f gemm -t double -s 4096 -v 'gemm11_dmma_128x128x16_w64x32_s4_k4_pf,gemm14*'
  profile ncu_matvec -f gemv,gevm -t float -s 2500x2000,16384
  profile ncu_gevm -f gevm -t float -s 2500x2000,16384 -v gevm5_fitted_tiles_u8,gevm5_fitted_tiles_u4_cs,gevm6_cluster_slabs_u4,cublas_gemv_n
  profile ncu_rows -f rows -t float -s 16384,2500x2000 -a op=row_sum -v rows_block_split,rows_block_deep,rows_subwarp,cub_segmented_reduce
  profile ncu_transpose -f transpose -t float -s 16384 -v 'transpose4*,transpose6*,cublas_geam'
  profile ncu_transpose7 -f transpose -t float -s 16384 -v 'transpose6*,transpose7*'
  profile ncu_rows_transpose_16384 -f rows,transpose -t float -s 16384 --axis op=col_mean,row_sum \
    -v 'rows_cols_vec16,rows_cols_cluster,rows_block_*,transpose6*'
fi
if has profile_behind; then  # docs/sgemm-ladder.md, "gemm_auto's rules": the shapes still below cuBLAS
  begin profile_behind
  # Read off OUT's own rules reports (the gemm_auto stage's): the four products furthest below,
  # the fastest listed step at each (the one tune should take) and the library's kernel.
  for t in float double; do
    rules="$out/gemm_auto_rules_$t.json.gz"
    if [ ! -f "$rules" ]; then
      echo "=== profile_behind: no $rules (the gemm_auto stage writes it)"; status=1; continue
    fi
    if ! lists=$(python3 scripts/gemm_auto_summary.py --profile-list --worst 4 "$rules"); then status=1; continue; fi
    IFS=$'\t' read -r behind steps <<< "$lists"
    if [ -z "$behind" ]; then echo "=== profile_behind: $t: no rules' shape below the library"; continue; fi
    profile "ncu_gemm_behind_$t" --compute -f gemm -t "$t" -s "$behind" -v "$steps"
  done
fi
if has allreduce; then  # two or more GPUs (docs/allreduce.md)
  begin allreduce
  nvidia-smi topo -m > "$out/topo.txt" 2>&1
  record "nvidia-smi topo -m" "$out/topo.txt"
  KL_COMPARE_EXE="$bin/compare" step allreduce_suite.log "$suite" --duration=true \
    -tc='*allreduce*,*--ops*,race*,*peer copy*'
  record "gpu_suite --duration=true -tc='*allreduce*,*--ops*,race*,*peer copy*'" "$out/allreduce_suite.log"
  report allreduce_default gz -f allreduce
  # The same sizes warm: 100 operations back to back per sample in one graph, time per operation
  # (how nccl-tests and vLLM report an all-reduce: docs/allreduce.md, "What the 20 us is").
  report allreduce_warm gz -f allreduce --ops 100
  report allreduce_issue_warm gz -f allreduce -s 256,16384,131072 --ops 100
  report allreduce_sweep_warm gz -f allreduce -t float --default-sweep --max-time 0.1 --ops 20 \
    -v 'allreduce[4-9]*,allreduce1[0-4]*,allreduce_auto'
  report allreduce_odd gz -f allreduce -t int,float,double -s 1,2,3,5,15,1000003
  # An injected trap costs its own row only (--isolate); the sanitizer's three tools over the push,
  # LL, push two-shot and LL128 steps and allreduce_auto (validation runs, small sizes, every type).
  # (compare exits 1 there: the injected trap's row is an error, which is this step's expected outcome)
  "$bin/compare" -q -f allreduce -s 4099 --inject-fault trap --isolate --max-time 0.05 --out "$out" \
    --name allreduce_fault > "$out/allreduce_fault.log" 2>&1
  rc=$?
  echo "=== allreduce_fault: exit $rc (1 expected: the trap's row only)"
  [ "$rc" -eq 1 ] || status=1
  rm -f "$out/allreduce_fault.csv" "$out/allreduce_fault.log"
  gzip -9 -n -f "$out/allreduce_fault.json"
  record "compare -q -f allreduce -s 4099 --inject-fault trap --isolate --max-time 0.05 --out $out --name allreduce_fault" \
    "$out/allreduce_fault.md" "$out/allreduce_fault.json.gz"
  # --report-api-errors no: the requirement probes ask for kernels a 90a-real build has no image
  # of (cudaFuncGetAttributes fails, by design); memory errors are still reported
  sanitize allreduce_sanitize.txt allreduce --report-api-errors no "$bin/compare" -q --validate-only --no-files \
    --skip-library -f allreduce -t int,float,double -s 1,33,4099,65537 -v 'allreduce[7-9]*,allreduce1[0-4]*,allreduce_auto'
fi
if has walkthrough; then  # docs/your-kernel.md's GPU half: this repository's examples graded as the doc shows
  begin walkthrough
  # (bob's kernel fails on purpose: compare exits 1, which is this stage's expected outcome)
  set -f
  "$bin/compare" --submissions "$bin/submissions/examples/manifest.json" -q -f reduce -t float -s 1000,1000003 \
    --variants 'alice/*,bob/*' --summary --out "$out" --name walkthrough > "$out/walkthrough.log" 2>&1
  rc=$?
  set +f
  echo "=== walkthrough: exit $rc (1 expected: bob fails)"
  [ "$rc" -eq 1 ] || status=1
  rm -f "$out/walkthrough.csv" "$out/walkthrough.summary.csv" "$out/walkthrough.json"
  record "compare --submissions submissions/examples/manifest.json -q -f reduce -t float -s 1000,1000003 --variants 'alice/*,bob/*' --summary --out $out --name walkthrough" \
    "$out/walkthrough.md" "$out/walkthrough.summary.md" "$out/walkthrough.log"
  # The class (docs/your-kernel.md, "A class folder"): every student of examples/user_kernels named,
  # those with no sum and those left out included; every one must have a row of the summary, and
  # the run exits 1 (bob's sum is wrong).
  students=$(cd examples/user_kernels && ls -d */ | tr -d /)
  patterns=$(printf '%s/*,' $students)
  patterns=${patterns%,}
  set -f
  "$bin/compare" --submissions "$bin/submissions/examples/manifest.json" -q -f reduce -t float -s 1000,1000003 \
    --variants "$patterns" --summary --out "$out" --name walkthrough-class > "$out/walkthrough-class.log" 2>&1
  rc=$?
  set +f
  missing=""
  for s in $students; do grep -q "^| $s | " "$out/walkthrough-class.summary.md" 2>/dev/null || missing="$missing $s"; done
  echo "=== walkthrough-class: exit $rc (1 expected), students without a row:${missing:- none}"
  [ "$rc" -eq 1 ] && [ -z "$missing" ] || status=1
  rm -f "$out/walkthrough-class.csv" "$out/walkthrough-class.summary.csv" "$out/walkthrough-class.json"
  record "compare --submissions submissions/examples/manifest.json -q -f reduce -t float -s 1000,1000003 --variants '$patterns' --summary --out $out --name walkthrough-class" \
    "$out/walkthrough-class.md" "$out/walkthrough-class.summary.md" "$out/walkthrough-class.log"
fi
if has plots; then
  begin plots
  shopt -s nullglob
  step plots.log python3 scripts/plot_compare.py "$out"/*.json "$out"/*.json.gz -o "$out/plots" && rm -f "$out/plots.log"
  record "scripts/plot_compare.py $out/*.json $out/*.json.gz -o $out/plots" "$out"/plots/*.png
  shopt -u nullglob
fi
# grading and judging write folders of their own (OUT/grading, OUT/judging): every file the stage
# leaves there is recorded, with the stage's command line.
if has grading; then
  begin grading
  BIN_DIR="${BIN_DIR:-}" bash scripts/device-grading.sh "$out/grading" ${GRADING_STAGES:+"$GRADING_STAGES"} || status=1
  record "scripts/device-grading.sh $out/grading ${GRADING_STAGES:-}" $(find "$out/grading" -type f)
fi
if has judging; then
  begin judging
  bash scripts/device-judging.sh "$bin" "$out/judging" || status=1
  record "scripts/device-judging.sh $bin $out/judging" $(find "$out/judging" -type f)
fi
# results/README.md is generated from the folders' manifests (ctest results_manifest checks it)
case "$out" in results/*) python3 scripts/results_manifest.py readme ;; esac
exit $status
