#!/usr/bin/env bash
# Grading outside submissions on a lent GPU, in one call (README "Method", docs/your-kernel.md):
#   scripts/device-grading.sh OUTDIR [STAGES]
# stages (default: all but multi):
#   redteam  tests/redteam graded as an outside folder in one command each for reduce, gemm and gemv
#   suite    the GPU suite's submission cases (the red team's verdicts, the examples, the timed
#            samples' input sets, a kernel left running)
#   default  the README's main job (compare, no arguments), its wall time, and its statuses
#            against results/<gpu>/default.json (compare diff)
#   scale    a 30-submission folder (scripts/make-class.sh): its first build and run, then one
#            submission edited: what is rebuilt and how long it takes
#   multi    that folder graded on every GPU at once (--grade-gpus), against one GPU
#   sanitize compute-sanitizer (memcheck, racecheck, synccheck) over a short grading of honest
#            submissions (their sandboxes included) and over the runner's own checks of a ladder step;
#            every process's log must end in a clean summary
# Exit status 1 when the sanitize stage found a log without a clean summary (the other stages'
# verdicts are in their reports: planted submissions fail by design).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device-common.sh
device_begin "$0" "${1:?usage: device-grading.sh OUTDIR [STAGES]}" grading
stages=" ${2:-redteam suite default scale} "
has() { [[ "$stages" == *" $1 "* ]]; }
failed=0
device_build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"

if has redteam; then
  say "redteam: the folder graded as an outside folder"
  m="$build/submissions/redteam/manifest.json"
  t1=$SECONDS
  # 16 and 32 MiB (4194304 and 8388608 floats): inputs that fit a persisting L2, where a window or
  # cache hints would carry them across the flush.
  "$build/compare" --submissions "$m" -f reduce -t float -s 1000,4194304,8388608,16777217 -v '*/*' --phase-timeout 5 \
    --summary --out "$out" --name redteam-reduce -q > "$out/redteam-reduce.txt" 2>&1
  say "redteam reduce: exit $? in $((SECONDS - t1)) s"
  t1=$SECONDS
  "$build/compare" --submissions "$m" -f gemm -t float -s 255x257x4099 -v '*/*' --phase-timeout 5 --summary \
    --out "$out" --name redteam-gemm -q > "$out/redteam-gemm.txt" 2>&1
  say "redteam gemm: exit $? in $((SECONDS - t1)) s"
  t1=$SECONDS
  "$build/compare" --submissions "$m" -f gemv -t float -s 4097x1023 -v '*/*' --phase-timeout 5 --summary \
    --out "$out" --name redteam-gemv -q > "$out/redteam-gemv.txt" 2>&1
  say "redteam gemv: exit $? in $((SECONDS - t1)) s"
  # results/<gpu>/grading/redteam-{reduce,gemm,gemv}.{md,summary.md,json[.gz]}: the large report gzipped
  rm -f "$out"/redteam-*.csv "$out"/redteam-*.txt
  gzip -9 -n -f "$out/redteam-reduce.json"
  grep -E "^\| [a-z_0-9]+ \| " "$out"/redteam-{reduce,gemm,gemv}.summary.md | cut -c1-260 | tee -a "$log"
fi

if has suite; then
  SUITE_TC='*red team*,*outside the tree*,*isolate*,*sample*,*left running*' device_suite
fi

if has default; then
  say "default: the README's main job"
  t1=$SECONDS
  "$build/compare" --out "$out/default" -q > "$out/default.txt" 2>&1
  say "default: exit $? in $((SECONDS - t1)) s"
  gpu=h100
  nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && gpu=h200
  base="results/$gpu/default.json.gz"
  [ -f "$base" ] || base="results/h100/default.json.gz"
  say "default: statuses against $base"
  "$build/compare" diff "$base" "$out/default/compare.json" > "$out/default-diff.txt" 2>&1
  python3 - "$out/default/compare.json" "$base" <<'PY' | tee -a "$log"
import gzip, json, sys
def rows(p):
    f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    return {(r["family"], r["dtype"], r["shape"], r["variant"]): r["status"] for r in json.load(f)["results"]}
new, old = rows(sys.argv[1]), rows(sys.argv[2])
both = set(new) & set(old)
changed = [(k, old[k], new[k]) for k in sorted(both) if old[k] != new[k]]
print(f"default statuses: {len(both)} rows in both runs, {len(changed)} changed, {len(set(new) - set(old))} only new, {len(set(old) - set(new))} only old")
for k, a, b in changed[:40]:
    print("  changed:", " ".join(k), a, "->", b)
from collections import Counter
print("  new statuses:", dict(Counter(new.values())))
PY
fi

if has scale || has multi; then
  class=/tmp/kl-class30
  scripts/make-class.sh 30 "$class" >> "$log"
  cb="$build"  # the same build, configured with the folder: only the 30 modules (and compare's manifest path) are new
  say "scale: configure with 30 submissions, build their modules"
  t1=$SECONDS
  { cmake -S . -B "$cb" -DKL_USER_KERNELS="$class" && cmake --build "$cb" -j "$(nproc)"; } > "$out/scale-build.log" 2>&1
  say "scale: first build of 30 submissions: exit $? in $((SECONDS - t1)) s"
  t1=$SECONDS
  for job in "reduce 1000003" "gemv 4097x1023" "gemm 1023x511x257"; do
    set -- $job
    "$cb/compare" -f "$1" -t float -s "$2" -v 'student*/*' --summary --out "$out/scale" --name "$1" -q \
      > "$out/scale-$1.txt" 2>&1
    say "scale: $1 $2: exit $?"
  done
  say "scale: grading 30 submissions (reduce n=1000003, gemv 4097x1023, gemm 1023x511x257, float) in $((SECONDS - t1)) s"
  echo "// edited" >> "$class/student07/$(ls "$class/student07")"
  t1=$SECONDS
  cmake --build "$cb" -j "$(nproc)" > "$out/scale-rebuild.log" 2>&1
  say "scale: rebuild after editing student07: exit $? in $((SECONDS - t1)) s; objects rebuilt: $(grep -c 'Building' "$out/scale-rebuild.log")"
  grep "Building" "$out/scale-rebuild.log" | tee -a "$log"
fi

if has multi; then
  g=$(nvidia-smi -L | wc -l)
  for k in 1 "$g"; do
    t1=$SECONDS
    "$cb/compare" -f reduce -t float -s 1000003 -v 'student*/*' --grade-gpus "$k" --summary --out "$out/multi$k" --name reduce -q \
      > "$out/multi$k-reduce.txt" 2>&1
    r1=$?
    "$cb/compare" -f gemv -t float -s 4097x1023 -v 'student*/*' --grade-gpus "$k" --summary --out "$out/multi$k" --name gemv -q \
      > "$out/multi$k-gemv.txt" 2>&1
    say "multi: 30 submissions (reduce n=1000003, gemv 4097x1023) on $k GPU(s): exit $r1 and $? in $((SECONDS - t1)) s"
  done
fi

if has sanitize; then
  m="$build/submissions/redteam/manifest.json"
  # One log per process: compare under the sanitizer here, each sandbox under its own through
  # KL_SANDBOX_WRAPPER (the protocol's named pipes reach it there); memcheck also over the timed
  # phase (the sampling loop, the input sets, the clock marks, the flush), where its own slowdown
  # fails the clock check (a FAIL row, exit 1, not a sanitizer error: those exit 9).
  mkdir -p "$out/sanitize"
  clean_re="(ERROR SUMMARY: 0 errors|0 hazards displayed \(0 errors)"
  for tool in memcheck racecheck synccheck; do
    t1=$SECONDS
    extra="--validate-only"
    [ "$tool" = memcheck ] && extra="--max-time 0.05 --min-samples 3"
    mkdir -p "$out/sanitize/$tool-sandboxes"
    KL_SANDBOX_LOG_DIR="$out/sanitize/$tool-sandboxes" KL_SANDBOX_WRAPPER="compute-sanitizer --tool $tool" \
    compute-sanitizer --tool "$tool" --target-processes application-only --error-exitcode 9 --log-file "$out/sanitize/$tool-%p.log" \
      "$build/compare" --submissions "$m" -f reduce -t float -s 1000,100003 \
      -v 'honest_sum/*,clash_a/*,reduce3*' $extra --no-files -q > "$out/sanitize-$tool.txt" 2>&1
    rc=$?
    # One log per process (compare's, each sandbox's); /dev/null keeps grep off stdin when none.
    files=(/dev/null)
    for f in "$out/sanitize/$tool-"*.log "$out/sanitize/$tool-sandboxes/"*.log; do [ -f "$f" ] && files+=("$f"); done
    logs=$((${#files[@]} - 1))
    summaries=$(grep -lE "SUMMARY" "${files[@]}" | wc -l)
    clean=$(grep -lE "$clean_re" "${files[@]}" | wc -l)
    say "sanitize $tool: exit $rc in $((SECONDS - t1)) s; $logs process logs (compare and its sandboxes), $summaries with a sanitizer summary, $clean with 0 errors"
    grep -hE "SUMMARY" "${files[@]}" | sort | uniq -c | tee -a "$log"
    # A process whose log has no clean summary was not checked to its end (killed before the
    # sanitizer wrote it) or had errors: the stage fails, naming the logs.
    if [ "$logs" -lt 2 ] || [ "$clean" -ne "$logs" ]; then
      failed=1
      for f in "${files[@]:1}"; do
        grep -qE "$clean_re" "$f" || say "sanitize $tool: no clean summary in $f"
      done
    fi
  done
fi
say "done in $((SECONDS - t0)) s"
exit "$failed"
