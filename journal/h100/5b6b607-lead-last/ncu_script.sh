# c6c54a8 on the H100: where the stream-K form's time goes at 4096^3 (ncu durations of the stream kernel and its fixup, the fixup's L2/DRAM traffic)
source .carry/prep.sh; t00=$SECONDS
which nsys > $O/which.txt 2>&1; ls /usr/local/cuda/bin >> $O/which.txt
NC="-q --validate-only --no-exact-check --no-recheck --no-files --skip-library -f gemm -t float"
for s in 4096 8192 4224x4096x4096; do
 timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_active.avg \
   -k 'regex:kernel_tma|stream_k_fixup' $B/compare $NC -s $s -v 'gemm13*r232_at,gemm13*r232_at_streamk' > $O/ncu_$s.txt 2>&1; echo "ncu $s rc=$? $((SECONDS-t00))s"
 grep -E "kernel_tma|stream_k_fixup|duration|dram__|hit_rate|cycles_active" $O/ncu_$s.txt | sed 's/(.*)//' | cut -c1-160
done
tar -C $O -cJf /tmp/all.tar.xz . && rm -rf $O/* && mv /tmp/all.tar.xz $O/; echo total $((SECONDS-t00))s
