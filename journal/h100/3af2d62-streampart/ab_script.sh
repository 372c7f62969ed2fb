# gemm13 stream-K: the plan's stream part as the last two waves (default) or the part-empty last wave alone (KL_TRIAL_G13_LAST_WAVE), one binary, A/B alternated
source .carry/prep.sh; t00=$SECONDS
cuobjdump -sass $B/compare > /tmp/b.sass 2>/dev/null
python3 scripts/sass_stats.py /tmp/b.sass kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1 > $O/sass.txt 2>&1; grep -E "^##|2-bank|instructions" $O/sass.txt | cut -c1-140
SH=4096x4096x4096,3000x3000x3000,1500x1500x1500,2048x2048x2048,4097x4100x1000,2904x3104x4100,513x257x129,67x132x100,6000x6000x6000
KL_TRIAL_G13_LAST_WAVE=1 timeout 200 $B/compare -q --validate-only --no-files --skip-library -f gemm -t float -s $SH -v 'gemm13*_at_streamk' > $O/validate_last.log 2>&1; echo "validate rc=$? $((SECONDS-t00))s pass=$(grep -c ' pass ' $O/validate_last.log) FAIL=$(grep -c 'FAIL' $O/validate_last.log)"
NC="-q --validate-only --no-exact-check --no-recheck --no-files --skip-library -f gemm -t float -s 4096 -v gemm13*r232_at_streamk"
KL_TRIAL_G13_LAST_WAVE=1 timeout 60 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct -k 'regex:kernel_tma|stream_k_fixup' $B/compare $NC > $O/ncu_last.txt 2>&1
echo "ncu last: $(grep -E 'duration|dram__bytes_read|hit_rate' $O/ncu_last.txt | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')"
F='-q -f gemm -t float -s 4096,8192,3000,6000,2048,1500,5000 -v gemm13*r232_at_streamk --max-time 1'
for i in 1 2; do
  for w in two last; do
    if [ $w = last ]; then export KL_TRIAL_G13_LAST_WAVE=1; else unset KL_TRIAL_G13_LAST_WAVE; fi
    timeout 150 $B/compare $F --out $O --name f_${w}_$i > $O/f_${w}_$i.log 2>&1; echo "f $w $i rc=$? $((SECONDS-t00))s"
  done
done
unset KL_TRIAL_G13_LAST_WAVE
for f in $O/f_*.md; do echo "== $(basename $f)"; awk '/^## /{s=$4} /^\| `/{split($0,c,"|"); gsub(/ /,"",c[4]); n=c[2]; gsub(/`| /,"",n); print s, c[4], c[9]}' $f | paste - - ; done
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
