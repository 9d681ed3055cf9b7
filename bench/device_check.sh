#!/usr/bin/env bash
# The end-to-end check on a GPU machine that has no packages of its own: run from the repository
# root with a build carried in .devbuild/ and its libraries in .devlibs/ (see bench/README.md).
#   bench/device_check.sh gpu     the gpu-labelled tests (ctest -L gpu)
#   bench/device_check.sh demo    the README's main job on examples/
#   bench/device_check.sh bench   profile, the archive's second run, the search throughput benchmark
#   bench/device_check.sh throughput   the search throughput benchmark only
#   bench/device_check.sh sandbox      the candidate sandbox (issue #11): the CPU escape tests, the
#                                      hostile GPU candidates, and the sandbox's cost per candidate
# The machine has no bubblewrap of its own: carry it in .devlibs/ beside the libraries, once, with
#   cp /usr/bin/bwrap /lib/x86_64-linux-gnu/{libselinux.so.1,libcap.so.2,libpcre2-8.so.0} .devlibs/
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
# Candidates run under bubblewrap ([verify] sandbox = "namespaces"): the machine's, else the carried one.
command -v bwrap >/dev/null 2>&1 || export KERNELBOT_BWRAP=$here/.devlibs/bwrap
# A build made in another checkout (a worktree) holds that checkout's paths too.
for d in $(grep -ho '/work/[A-Za-z0-9_.-]*' build/CTestTestfile.cmake 2>/dev/null | sort -u); do
  [ -e "$d" ] || ln -s "$here" "$d"
done
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
if [ "$stage" = sandbox ]; then
  bw=${KERNELBOT_BWRAP:-bwrap}
  { "$bw" --version; "$bw" --unshare-user --unshare-pid --unshare-net --die-with-parent --ro-bind / / true &&
    echo "bwrap can create namespaces here"; } 2>&1 | tee "$OUT/logs/bwrap.txt"
  (cd build && timeout 200 ctest -R "SandboxEscape|EvalGpu\.(SandboxedCandidateEscapesNothing|ForgedCrashLineBecomesNoReason|ProcessSandboxIsChosenExplicitlyAndWarned|CandidateCannotReadGithubToken|SaxpyFloat4IsAccepted|IllegalAddressCrashes|HangIsKilledAtTheTimeout)" \
    --output-on-failure -j1) >"$OUT/logs/sandbox_tests.log" 2>&1
  echo "sandbox tests exit code $?" >>"$OUT/logs/sandbox_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#" "$OUT/logs/sandbox_tests.log" | tail -25
  # The cost per candidate: the same eval (compile cached after the first) in each sandbox,
  # alternated so clock drift falls on both; the wall time, and the timing the harness reports.
  work=/tmp/kernelbot-eval-gpu-test  # written by the EvalGpu tests above, with kernelbot-process.toml
  for i in 1 2 3; do
    for mode in namespaces process; do
      cfg=$work/kernelbot.toml; [ $mode = process ] && cfg=$work/kernelbot-process.toml
      start=$(date +%s%N)
      "$kb" --config "$cfg" --json eval --kernel saxpy --candidate tests/profiler/candidates/saxpy_fast.cu \
        >"$OUT/logs/overhead-$mode-$i.json" 2>"$OUT/logs/overhead-$mode-$i.err"
      rc=$?
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      echo "$mode run $i: exit $rc, $ms ms, $(grep -o '"speedup": *[0-9.]*' "$OUT/logs/overhead-$mode-$i.json" | head -1)," \
           "$(grep -o '"run_s": *[0-9.]*' "$OUT/logs/overhead-$mode-$i.json" | head -1)" | tee -a "$OUT/logs/overhead.txt"
    done
  done
fi
tar -C "$OUT" -czf "$OUT/logs-$stage.tar.gz" logs && rm -rf "$OUT/logs"
