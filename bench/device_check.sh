#!/usr/bin/env bash
# The end-to-end check on a GPU machine that has no packages of its own: run from the repository
# root with a build carried in .devbuild/ and its libraries in .devlibs/ (see bench/README.md).
#   bench/device_check.sh gpu     the gpu-labelled tests (ctest -L gpu)
#   bench/device_check.sh demo    the README's main job on examples/
#   bench/device_check.sh bench   profile, the archive's second run, the search throughput benchmark
#   bench/device_check.sh throughput   the search throughput benchmark only
# Everything is logged under $OUT (default /tmp/kb-out) and packed into $OUT/logs-<stage>.tar.gz.
set -u
stage=${1:-demo}
here=$PWD
OUT=${OUT:-/tmp/kb-out}
mkdir -p "$OUT/logs"
export LD_LIBRARY_PATH=$here/.devlibs:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# Tests and ctest files hold the build machine's absolute paths (/work/main/...).
[ -d build ] || mv .devbuild build
if [ ! -e /work/main ]; then mkdir -p /work && ln -s "$here" /work/main; fi
kb=$here/build/bot/kernelbot
export KERNELBOT_HARNESS=$here/build/bot/kernelbot-harness  # tools outside bot/ find it here
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/logs/gpu.txt"

if [ "$stage" = demo ]; then
  (cd examples && /usr/bin/time -v "$kb" run) >"$OUT/logs/demo.out" 2>"$OUT/logs/demo.err"
  echo "demo exit code $?" | tee -a "$OUT/logs/demo.out"
  cp -r examples/.kernelbot/prs "$OUT/logs/prs" 2>/dev/null
  cp -r examples/.kernelbot/results "$OUT/logs/results" 2>/dev/null
  cat "$OUT/logs/demo.out"
  for f in examples/.kernelbot/prs/*/PR.md; do echo "=== $f"; head -c 1500 "$f"; done
fi

if [ "$stage" = gpu ]; then
  (cd build && timeout 540 ctest -L gpu --output-on-failure -j1) >"$OUT/logs/gpu_tests.log" 2>&1
  echo "gpu tests exit code $?" >>"$OUT/logs/gpu_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#" "$OUT/logs/gpu_tests.log" | tail -45
fi

if [ "$stage" = throughput ]; then
  (cd examples && timeout 300 "$here/build/bench/search_throughput" --config kernelbot.toml --kernels saxpy,transpose \
    --max-candidates 12) >"$OUT/logs/throughput.out" 2>"$OUT/logs/throughput.err"
  cat "$OUT/logs/throughput.out"; tail -3 "$OUT/logs/throughput.err"
fi

if [ "$stage" = bench ]; then
  (cd examples && "$kb" profile) >"$OUT/logs/profile.out" 2>"$OUT/logs/profile.err"
  echo "profile exit code $?" >>"$OUT/logs/profile.out"
  cat "$OUT/logs/profile.out"
  for i in 1 2; do
    start=$(date +%s%N)
    (cd examples && "$kb" --json search --kernel saxpy) >"$OUT/logs/search_$i.json" 2>"$OUT/logs/search_$i.err"
    rc=$?
    echo "search run $i: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$OUT/logs/archive.txt"
  done
  (cd examples && timeout 200 "$here/build/bench/search_throughput" --config kernelbot.toml --kernels saxpy,transpose --max-candidates 10) \
    >"$OUT/logs/throughput.out" 2>"$OUT/logs/throughput.err"
  cat "$OUT/logs/throughput.out"
fi
tar -C "$OUT" -czf "$OUT/logs-$stage.tar.gz" logs && rm -rf "$OUT/logs"
