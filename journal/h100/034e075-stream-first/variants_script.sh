# FFMA register-bank statistics of gemm13's three kernel forms (unsplit, stream-K + fixup kernel, stream part first) in each cubin built here
rm -rf /tmp/v; mkdir -p /tmp/v && tar -C /tmp/v -xJf .carry/v/cubins.tar.xz; O=${OUT:-/tmp/out}
for f in /tmp/v/*.cubin; do
  n=$(basename $f .cubin); /usr/local/cuda/bin/cuobjdump -sass $f > /tmp/v/$n.sass 2>/dev/null
  line="$n:"
  for m in 0 1 2; do
    python3 scripts/sass_stats.py /tmp/v/$n.sass "ELb1ELi${m}EE" > /tmp/v/$n.$m.txt 2>&1
    line="$line | m$m $(grep -o 'instructions [0-9]*' /tmp/v/$n.$m.txt | head -1 | cut -d' ' -f2) $(grep -o '2-bank pair [0-9.]*' /tmp/v/$n.$m.txt | head -1 | cut -d' ' -f3) $(grep -o '4-bank pair [0-9.]*' /tmp/v/$n.$m.txt | head -1 | cut -d' ' -f3)"
  done
  python3 scripts/sass_stats.py /tmp/v/$n.sass "consume_first" > /tmp/v/$n.c.txt 2>&1
  line="$line | cons $(grep -o 'instructions [0-9]*' /tmp/v/$n.c.txt | head -1 | cut -d' ' -f2) $(grep -o '2-bank pair [0-9.]*' /tmp/v/$n.c.txt | head -1 | cut -d' ' -f3)"
  echo "$line stl=$(grep -c 'STL' /tmp/v/$n.sass)"
  /usr/local/cuda/bin/cuobjdump -res-usage $f 2>/dev/null | grep -A1 -E "consume_first|ELi2EE" | grep -oE "Function [^:]*|REG:[0-9]+|STACK:[0-9]+|LOCAL:[0-9]+" | tr '\n' ' '; echo
done | tee $O/bank_stats.txt
