#!/usr/bin/env bash
# One device session for kernelbot-harness (profiler-runtime): GPU tests, calibration, five
# separate timings of saxpy at n=16M, the same kernel under ncu, and metrics mode. Run from a
# directory holding kernelbot-harness, harness_gpu_tests, variants/ and libs/ (see README.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export LD_LIBRARY_PATH=$here/libs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export KB_RUNNER_TEST_DIR=$here
final=${OUT:-/tmp/kb-profiler-runtime}
out=$final/files  # everything goes into one archive at the end (the device returns few files)
mkdir -p "$out"
summary=$out/summary.txt
: > "$summary"

{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
  nvcc --version | tail -1; } > "$out/env.txt" 2>&1

timeout 170 ./harness_gpu_tests --gtest_color=no > "$out/gpu_tests.txt" 2>&1
echo "harness_gpu_tests rc=$?" >> "$summary"

./kernelbot-harness --calibrate --out "$out/device.json" 2> "$out/calibrate.log"
echo "calibrate rc=$?" >> "$summary"

python3 make_jobs.py "$here" "$out" >> "$summary" 2>&1
for i in 1 2 3 4 5; do
  ./kernelbot-harness --job "$out/job_time16m.json" --out "$out/time16m_$i.json" 2> "$out/time16m_$i.log"
  echo "time16m run $i rc=$?" >> "$summary"
done

ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu_bin" ]; then
  timeout 120 "$ncu_bin" --clock-control none --cache-control all -k regex:saxpy -c 10 --csv \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    ./kernelbot-harness --job "$out/job_ncu.json" --out "$out/ncu_run.json" > "$out/ncu.csv" 2> "$out/ncu.log"
  echo "ncu rc=$? ($ncu_bin)" >> "$summary"
else
  echo "ncu not found" >> "$summary"
fi

./kernelbot-harness --job "$out/job_metrics.json" --out "$out/metrics.json" 2> "$out/metrics.log"
echo "metrics rc=$?" >> "$summary"

python3 summarize.py "$out" | tee "$out/table.txt"
cat "$summary"
tail -5 "$out/gpu_tests.txt"
grep -E "FAILED|Failure|Expected|Which is|Actual" "$out/gpu_tests.txt" | head -40
tar -C "$out" -czf "$final/profiler-runtime.tgz" . && rm -rf "$out"
