# stream-part-first trial (034e075) on the H100: SASS of gemm13's kernel forms against c6c54a8's, validation where the form applies, the A/B alternated
source .carry/prep.sh; t00=$SECONDS
mkdir -p /tmp/lt && xz -dc .carry/trial/compare.xz > /tmp/lt/compare && chmod +x /tmp/lt/compare
LT=/tmp/lt/compare
cuobjdump -sass $B/compare > /tmp/b.sass 2>/dev/null; cuobjdump -sass $LT > /tmp/t.sass 2>/dev/null
P=kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1
python3 scripts/sass_stats.py /tmp/b.sass $P > $O/sass_base.txt 2>&1; python3 scripts/sass_stats.py /tmp/t.sass $P > $O/sass_trial.txt 2>&1
cat $O/sass_base.txt $O/sass_trial.txt | cut -c1-200
python3 - > $O/sass_bodies.txt <<'EOF'
import re, hashlib
for f in ("/tmp/b.sass", "/tmp/t.sass"):
    cur=None; body={}
    for line in open(f, errors="replace"):
        m=re.search(r"Function : (\S+)", line)
        if m: cur=m.group(1) if "kernel_tmaILi128ELi256ELi32ELi64ELi64ELi8ELi16ELi4ELi232ELb0ELi1ELb1" in m.group(1) else None; body[cur]=[] if cur else None; continue
        if cur:
            m=re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
            if m: body[cur].append(re.sub(r"0x[0-9a-f]+", "X", m.group(1)))
    for k,v in body.items():
        if k: print(f, k[-60:], len(v), hashlib.md5("\n".join(v).encode()).hexdigest())
EOF
cat $O/sass_bodies.txt
SH=4096x4096x4096,2900x3100x200,3000x3000x160,4100x4100x132,4097x4100x1000,5000x5000x1000,4224x4096x4096,2904x3104x4100,1500x1500x1500,2048x2048x2048,8200x8200x40,3000x3000x3000
timeout 240 $LT -q --validate-only --no-files --skip-library -f gemm -t float -s $SH -v 'gemm13*r232_at,gemm13*_at_streamk,gemm_auto' > $O/validate.log 2>&1; echo "validate rc=$? $((SECONDS-t00))s pass=$(grep -c ' pass ' $O/validate.log) fail=$(grep -ci 'fail' $O/validate.log)"; grep -iE "fail|error" $O/validate.log | head -5
F='-q -f gemm -t float -s 4096,8192,3000,6000,4224x4096x4096,2048,1500 -v gemm13*r232_at_streamk --max-time 1'
for i in 1 2; do
  for w in base trial; do
    bin=$B/compare; [ $w = trial ] && bin=$LT
    timeout 150 $bin $F --out $O --name f_${w}_$i > $O/f_${w}_$i.log 2>&1; echo "f $w $i rc=$? $((SECONDS-t00))s"
  done
done
for f in $O/f_*.md; do echo "== $(basename $f)"; awk '/^## /{s=$4} /^\| `/{split($0,c,"|"); gsub(/ /,"",c[4]); n=c[2]; gsub(/`| /,"",n); print s, substr(n,1,60), c[4], c[9]}' $f; done
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
