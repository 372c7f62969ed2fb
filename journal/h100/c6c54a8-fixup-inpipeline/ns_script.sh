# H100: the stream kernel and its fixup at 4096^3 in ns (one pass, no flush between), then compare's timing of the same form and cuBLAS in the same call; c6c54a8's binary
source .carry/prep.sh; t00=$SECONDS
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 150 $NCU --csv --print-units base --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:'kernel_tma|stream_k_fixup' --launch-skip 6 --launch-count 24 \
  $B/compare -q -f gemm -t float -s 4096x4096x4096 -v '*r232_at_streamk' --max-time 0.1 > $O/ncu_ns_4096.csv 2>&1
grep -E "kernel_tma|stream_k_fixup" $O/ncu_ns_4096.csv | awk -F'","' '{print $5, $NF}' | sed 's/<.*//' | tr -d '"' | head -30
rep fix_ab_4096 120 -f gemm -t float -s 4096x4096x4096 -v '*r232_at_streamk,*r232_at,cublas_gemm'
grep -E "r232_at|cublas" $O/fix_ab_4096.md | cut -c1-170
echo total $((SECONDS-t00))s
