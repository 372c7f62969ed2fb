# gemm13's [k][m] k loop unrolled 8 or 4 steps (trial builds of 3af2d62+1) against c6c54a8: instruction-fetch stalls, validation, A/B of both forms
set -u; O=${OUT:-/tmp/out}; mkdir -p $O /tmp/bins; export PATH=$PATH:/usr/local/cuda/bin; t00=$SECONDS
for w in base u8 u4; do xz -dc .carry/$w.xz > /tmp/bins/$w; chmod +x /tmp/bins/$w; done
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $O/smi_start.txt
P=kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1
for w in base u8 u4; do cuobjdump -sass /tmp/bins/$w > /tmp/$w.sass 2>/dev/null; python3 scripts/sass_stats.py /tmp/$w.sass $P > $O/sass_$w.txt 2>&1; echo "== $w"; grep -E "^##|2-bank|instructions" $O/sass_$w.txt | cut -c1-120; done
SH=4096x4096x4096,4224x4096x4096,1500x1500x1500,4097x4100x1000,2904x3104x4100,513x257x129,67x132x100,1x4x4
for w in u8 u4; do timeout 150 /tmp/bins/$w -q --validate-only --no-files --skip-library -f gemm -t float -s $SH -v 'gemm13*r232_at,gemm13*_at_streamk' > $O/validate_$w.log 2>&1; echo "validate $w rc=$? pass=$(grep -c ' pass ' $O/validate_$w.log) FAIL=$(grep -c 'FAIL' $O/validate_$w.log) $((SECONDS-t00))s"; done
M=smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_sample_count,gpu__time_duration.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
NC="-q --validate-only --no-exact-check --no-recheck --no-files --skip-library -f gemm -t float -s 4224x4096x4096 -v gemm13*r232_at,gemm13*r232_at_streamk"
for w in base u8 u4; do timeout 100 ncu --metrics $M -k 'regex:kernel_tma' /tmp/bins/$w $NC > $O/stall_$w.txt 2>&1; echo "== stall $w"; grep -E "pcsamp|duration|pct|kernel_tma" $O/stall_$w.txt | sed 's/smsp__pcsamp_warps_issue_stalled_//; s/(CUtensor.*//' | awk '{print $1, $2, $NF}' | tr '\n' ' '; echo; done
F='-q -f gemm -t float -s 4096,8192,4224x4096x4096,2048 -v gemm13*r232_at,gemm13*r232_at_streamk --max-time 1'
for i in 1 2; do for w in base u8 u4; do
  timeout 150 /tmp/bins/$w $F --out $O --name f_${w}_$i > $O/f_${w}_$i.log 2>&1; echo "f $w $i rc=$? $((SECONDS-t00))s"
done; done
for f in $O/f_*.md; do echo "== $(basename $f)"; awk '/^## /{s=$4} /^\| `/{split($0,c,"|"); gsub(/ /,"",c[4]); n=c[2]; gsub(/`| /,"",n); if (n !~ /cublas/) print s, substr(n,length(n)-8), c[4], c[9]}' $f | tr '\n' ';'; echo; done
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $O/smi_end.txt
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
