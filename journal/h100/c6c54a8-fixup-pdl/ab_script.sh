# A/B: the 0226e00 binary (base) against the fixup trial (PDL + loads ahead), alternated, on one H100
source .carry/prep.sh; t00=$SECONDS
mkdir -p /tmp/lt && xz -dc .carry/trial/compare.xz > /tmp/lt/compare && chmod +x /tmp/lt/compare
cuobjdump -sass /tmp/lt/compare > /tmp/t.sass 2>/dev/null
python3 .carry/sass_stats.py /tmp/t.sass 'kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1' > $O/sass_trial.txt 2>&1; cat $O/sass_trial.txt
python3 .carry/sass_stats.py /tmp/t.sass 'stream_k_fixup' > $O/sass_trial_fixup.txt 2>&1; head -c 1500 $O/sass_trial_fixup.txt
F='-q -f gemm -t float -s 4096,8192,1500,1536,2500,3000,1200x1800x2000,2000x1500x1000,4224x4096x4096 -v gemm13*r232_at_streamk --max-time 1'
D='-q -f gemm -t double -s 2048,3000,4096,8192 -v gemm14*streamk,gemm11*128x128*_pf_streamk --max-time 1'
for i in 1 2; do
  for w in base trial; do
    bin=$B/compare; [ $w = trial ] && bin=/tmp/lt/compare
    timeout 150 $bin $F --out $O --name f_${w}_$i > $O/f_${w}_$i.log 2>&1; echo "f $w $i rc=$? $((SECONDS-t00))s"
    timeout 150 $bin $D --out $O --name d_${w}_$i > $O/d_${w}_$i.log 2>&1; echo "d $w $i rc=$? $((SECONDS-t00))s"
  done
done
for f in $O/f_*.md $O/d_*.md; do echo "== $(basename $f)"; awk '/^## /{s=$4} /^\| `/{split($0,c,"|"); gsub(/ /,"",c[4]); n=c[2]; gsub(/`| /,"",n); print s, substr(n,1,60), c[4], c[9]}' $f; done
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
