# why the lead-last trial's stream kernel is slower where its order is unchanged (4224x4096x4096): warp stall reasons, c6c54a8 against 5b6b607
set -u; O=${OUT:-/tmp/out}; mkdir -p $O /tmp/pair && tar -C /tmp/pair -xJf .carry/pair.tar.xz && chmod +x /tmp/pair/*
export PATH=$PATH:/usr/local/cuda/bin; t00=$SECONDS
M=smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_sample_count,gpu__time_duration.sum,sm__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
NC="-q --validate-only --no-exact-check --no-recheck --no-files --skip-library -f gemm -t float -v gemm13*r232_at_streamk"
for s in 4224x4096x4096 4096; do for w in base trial; do
 timeout 120 ncu --metrics $M -k 'regex:kernel_tma' /tmp/pair/$w $NC -s $s > $O/stall_${w}_$s.txt 2>&1; echo "$w $s rc=$? $((SECONDS-t00))s"
done; done
for f in $O/stall_*; do echo "== $f"; grep -E "pcsamp|duration|inst_executed|pct" $f | awk '{print $1, $NF}' | sed 's/smsp__pcsamp_warps_issue_stalled_//' | tr '\n' ' '; echo; done
