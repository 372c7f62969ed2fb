# H100: the fixup right after the stream kernel, one metric an ncu run (one pass: no replay, so L2 keeps what the stream kernel left), c6c54a8's binary
source .carry/prep.sh; t00=$SECONDS
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for s in 4096x4096x4096 8192x8192x8192; do
  for m in gpu__time_duration.sum dram__bytes_read.sum lts__t_sector_hit_rate.pct dram__bytes_write.sum; do
    f=$O/ncu1_${s}_$m.txt
    timeout 120 $NCU --cache-control none --clock-control none --metrics $m -k regex:'kernel_tma|stream_k_fixup' --launch-skip 6 --launch-count 8 \
      $B/compare -q -f gemm -t float -s $s -v '*r232_at_streamk' --max-time 0.05 > $f 2>&1
    echo "=== $s $m: $(grep -c 'passes' $f) profiled, passes: $(grep -o '[0-9]* pass' $f | sort | uniq -c | tr '\n' ' ')"
    grep -E "^ +$m|^    [a-z_]+__" $f | awk '{print $NF, $(NF-1)}' | tr '\n' ' '; echo
  done
done
echo total $((SECONDS-t00))s
