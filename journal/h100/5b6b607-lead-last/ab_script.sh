# lead-last trial (5b6b607) against c6c54a8 on the H100: SASS bank stats, validation, DRAM traffic, the A/B alternated
source .carry/prep.sh; t00=$SECONDS
mkdir -p /tmp/pair && tar -C /tmp/pair -xJf .carry/pair.tar.xz && chmod +x /tmp/pair/*
BASE=/tmp/pair/base; LT=/tmp/pair/trial
cuobjdump -sass $BASE > /tmp/b.sass 2>/dev/null; cuobjdump -sass $LT > /tmp/t.sass 2>/dev/null
P=kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1
python3 scripts/sass_stats.py /tmp/b.sass $P > $O/sass_base.txt 2>&1; python3 scripts/sass_stats.py /tmp/t.sass $P > $O/sass_trial.txt 2>&1
cat $O/sass_base.txt $O/sass_trial.txt | cut -c1-220
SH=4096x4096x4096,2900x3100x200,3000x3000x160,4100x4100x132,4097x4100x1000,5000x5000x1000,4224x4096x4096,2904x3104x4100,1500x1500x1500,2048x2048x2048,8200x8200x40,3000x3000x3000,1x4x4,513x257x129,67x132x100
timeout 200 $LT -q --validate-only --no-files --skip-library -f gemm -t float -s $SH -v 'gemm13*r232_at,gemm13*_at_streamk,gemm_auto' > $O/validate.log 2>&1; echo "validate rc=$? $((SECONDS-t00))s pass=$(grep -c ' pass ' $O/validate.log) fail=$(grep -ci 'fail' $O/validate.log)"; grep -iE "fail|error" $O/validate.log | head -5
NC="-q --validate-only --no-exact-check --no-recheck --no-files --skip-library -f gemm -t float -s 4096 -v gemm13*r232_at_streamk"
for w in base trial; do bin=$BASE; [ $w = trial ] && bin=$LT
 timeout 60 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct -k 'regex:kernel_tma|stream_k_fixup' $bin $NC > $O/ncu_$w.txt 2>&1
 echo "ncu $w: $(grep -E 'duration|dram__bytes_read|hit_rate' $O/ncu_$w.txt | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')"
done
F='-q -f gemm -t float -s 4096,8192,3000,6000,4224x4096x4096,2048,1500 -v gemm13*r232_at_streamk --max-time 1'
for i in 1 2; do
  for w in base trial; do
    bin=$BASE; [ $w = trial ] && bin=$LT
    timeout 150 $bin $F --out $O --name f_${w}_$i > $O/f_${w}_$i.log 2>&1; echo "f $w $i rc=$? $((SECONDS-t00))s"
  done
done
for f in $O/f_*.md; do echo "== $(basename $f)"; awk '/^## /{s=$4} /^\| `/{split($0,c,"|"); gsub(/ /,"",c[4]); n=c[2]; gsub(/`| /,"",n); print s, substr(n,1,40), c[4], c[9]}' $f | grep -v cublas; done
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
