#!/usr/bin/env bash
# The end-to-end check on a GPU machine that has no packages of its own: run from the repository
# root with a build carried in .devbuild/ and its libraries in .devlibs/ (see bench/README.md).
#   bench/device_check.sh gpu     the gpu-labelled tests (ctest -L gpu; TESTS=<ctest -R pattern>: those only;
#                                 GPU_TEST_TIMEOUT=<s>: their time limit, default 540)
#   bench/device_check.sh gpu-shards   on a host with several GPUs: every gpu-labelled test, in four
#                                 groups spread over the GPUs (four GPUs: about 5.5 minutes)
#   bench/device_check.sh demo    the README's main job on examples/ (the tunable-macros example);
#                                 with FRESH=1 (any stage) both examples' .kernelbot/ and the
#                                 device calibration are removed first; `make demo` from a fresh
#                                 state is `FRESH=1 ... demo`, then `... production` without FRESH
#   bench/device_check.sh production   the main job on examples/production/ (production-style code;
#                                      the other half of `make demo`)
#   bench/device_check.sh bench   profile, the archive's second run, the search throughput benchmark
#   bench/device_check.sh throughput   the search throughput benchmark only
#   bench/device_check.sh search       the GPU tests that run whole searches (the engine's rounds:
#                                      SearchOnGpu, the shipped replays, RunGpu), then the throughput
#                                      benchmark: what a change to search/ must pass on the device
#   bench/device_check.sh sandbox      the candidate sandbox: the CPU escape tests, the
#                                      hostile GPU candidates, and the sandbox's cost per candidate
#   bench/device_check.sh verdicts     the judge: the harness tests and the eval tests of
#                                      TESTS (a ctest -R pattern; default every EvalGpu test)
#   bench/device_check.sh cost         time per candidate: `kernelbot eval` of saxpy_fast, 5 runs
#   bench/device_check.sh publish      `kernelbot pr` on a saved winner (re-verified on this GPU, then
#                                      refused once the source changed) and `kernelbot eval --sanitize`
#                                      (compute-sanitizer over the sandboxed servers: a clean candidate,
#                                      one that reads past its input)
#   bench/device_check.sh session      the judge's session ([verify].persistent_judge): its GPU test,
#                                      then the throughput benchmark with it on and off, alternated
#                                      on one compile cache (the first run fills it), ROUNDS pairs
#   bench/device_check.sh recheck      after a change to the judge's session: the session GPU test,
#                                      the harness and eval tests, one throughput run with and one
#                                      without the session (about 6 minutes); then run
#                                      FRESH=1 ... demo, then ... production for make demo's time
#   bench/device_check.sh gpus         on a host with several GPUs: the throughput benchmark on one GPU
#                                      and on all (one worker per GPU), all with each job confined to
#                                      its GPU and with every GPU visible (KERNELBOT_SANDBOX_EVERY_GPU=1),
#                                      alternated on one compile cache (the first run fills it), then
#                                      saxpy on GPU 0 and transpose on GPU 1 as two processes, alone
#                                      and at once, ROUNDS rounds
#   bench/device_check.sh contention   on a host with several GPUs: what they share (bench/host_contention:
#                                      CPU, host memory, process start, allocation, copies, launches,
#                                      GPU time, alone and beside another GPU's worker), ROUNDS times,
#                                      with the host's CPU quota, frequency governor and GPU topology
#   bench/device_check.sh judges       the throughput benchmark with this build and with a previous one
#                                      carried in .devold/ (its search_throughput and kernelbot-harness,
#                                      made by bench/device_bundle.sh --previous), alternated on one
#                                      GPU, ROUNDS pairs (default 2): what a change to the judge costs
#   bench/device_check.sh stability    five `kernelbot profile` runs of saxpy at n=16M in the sandbox,
#                                      and ncu on the same kernel (timing noise, agreement with ncu)
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

# FRESH=1: as on a fresh clone on a fresh machine (no compile cache, no archive, no device
# calibration: the user's cache folder holds that one).
[ "${FRESH:-0}" = 1 ] && rm -rf examples/.kernelbot examples/production/.kernelbot \
  "${KERNELBOT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelbot}"
if [ "$stage" = demo ]; then
  (cd examples && /usr/bin/time -v "$kb" run) >"$OUT/logs/demo.out" 2>"$OUT/logs/demo.err"
  echo "demo exit code $?" | tee -a "$OUT/logs/demo.out"
  cp -r examples/.kernelbot/prs "$OUT/logs/prs" 2>/dev/null
  cp -r examples/.kernelbot/results "$OUT/logs/results" 2>/dev/null
  cat "$OUT/logs/demo.out"
  for f in examples/.kernelbot/prs/*/PR.md; do echo "=== $f"; head -c 1500 "$f"; done
fi

if [ "$stage" = production ]; then
  (cd examples/production && /usr/bin/time -v "$kb" run) >"$OUT/logs/production.out" 2>"$OUT/logs/production.err"
  echo "production exit code $?" | tee -a "$OUT/logs/production.out"
  cp -r examples/production/.kernelbot/prs "$OUT/logs/production-prs" 2>/dev/null
  cp -r examples/production/.kernelbot/results "$OUT/logs/production-results" 2>/dev/null
  cat "$OUT/logs/production.out"
  grep -E "advisory|Elapsed" "$OUT/logs/production.err" | tail -8
  for f in examples/production/.kernelbot/prs/*/PR.md; do echo "=== $f"; head -c 1200 "$f"; done
fi

if [ "$stage" = gpu ]; then
  (cd build && timeout "${GPU_TEST_TIMEOUT:-540}" ctest -L gpu ${TESTS:+-R "$TESTS"} --output-on-failure -j1) >"$OUT/logs/gpu_tests.log" 2>&1
  echo "gpu tests exit code $?" >>"$OUT/logs/gpu_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#" "$OUT/logs/gpu_tests.log" | tail -45
fi

# Every gpu test at once on a host of several GPUs. The suite is four groups of about 4-5.5
# minutes each (measured on H200s, 2026-11-30; every gpu test is in exactly one): group i runs on
# GPU (i-1) mod N, the groups of one GPU one after the other, each with a work directory of its
# own (KB_TEST_WORK_DIR: the eval and contract tests keep one between tests; TMPDIR would not do,
# the sandboxed compiles cannot see it). Four GPUs: about 5.5 minutes; two: about 9.5 (give the
# call its 600 s and GPU_TEST_TIMEOUT=590).
if [ "$stage" = gpu-shards ]; then
  groups=('EvalGpu|DeviceChecksGpu|GuardKernelsGpu'
          'ContractGpu|ArchGpu|HarnessGpu|ProfileGpu|examples_correctness|UserCodeGpu|KernelTargetGpu|ModelStyleGpu'
          'RunGpuTest|ModelFamilyOnGpu|ArchRunGpu|SearchOnGpu'
          'ShippedReplayOnGpu|SlowKernelOnGpu|TiedTileGpu')
  all=$(IFS='|'; echo "${groups[*]}")
  (cd build && ctest -N -L gpu -E "$all" | grep "Test *#") | sed 's/^/in no group: /'
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  runners=()
  for g in $(seq 0 $((gpus - 1))); do
    (
      for i in "${!groups[@]}"; do
        [ $((i % gpus)) = "$g" ] || continue
        mkdir -p "/tmp/kb-group-$i"
        (cd build && CUDA_VISIBLE_DEVICES=$g KB_TEST_WORK_DIR="/tmp/kb-group-$i" ctest -L gpu -R "${groups[$i]}" \
          --output-on-failure -j1) >"$OUT/logs/gpu_tests_group$((i + 1)).log" 2>&1
      done
    ) &
    runners+=($!)
  done
  # One limit for the lot: what a group had not finished by then is said below.
  ( sleep "${GPU_TEST_TIMEOUT:-540}"; pkill -f "ctest -L gpu" ) &
  killer=$!
  wait "${runners[@]}"
  kill "$killer" 2>/dev/null
  for i in "${!groups[@]}"; do
    log="$OUT/logs/gpu_tests_group$((i + 1)).log"
    echo "== group $((i + 1)) (GPU $((i % gpus))): ${groups[$i]}"
    grep -E "tests passed|\*\*\*|Not Run|Timeout" "$log" 2>/dev/null | tail -20
    grep -q "tests passed" "$log" 2>/dev/null || echo "group $((i + 1)) did not finish"
  done
fi

if [ "$stage" = search ]; then
  (cd build && timeout 420 ctest -L gpu -R 'SearchOnGpu|ShippedReplayOnGpu|RunGpu' --output-on-failure -j1) \
    >"$OUT/logs/search_tests.log" 2>&1
  echo "search gpu tests exit code $?" >>"$OUT/logs/search_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#" "$OUT/logs/search_tests.log" | tail -20
fi

if [ "$stage" = throughput ] || [ "$stage" = search ]; then
  (cd examples && timeout 300 "$here/build/bench/search_throughput" --config kernelbot.toml --kernels saxpy,transpose \
    --max-candidates 12) >"$OUT/logs/throughput.out" 2>"$OUT/logs/throughput.err"
  cat "$OUT/logs/throughput.out"; tail -3 "$OUT/logs/throughput.err"
fi

if [ "$stage" = judges ]; then
  [ -x .devold/search_throughput ] || { echo "judges: no .devold/search_throughput (bench/device_bundle.sh --previous)"; exit 2; }
  for i in $(seq 1 "${ROUNDS:-2}"); do
    for which in previous current; do
      bin=$here/build/bench/search_throughput harness=$here/build/bot/kernelbot-harness
      [ "$which" = previous ] && bin=$here/.devold/search_throughput harness=$here/.devold/kernelbot-harness
      (cd examples && KERNELBOT_HARNESS=$harness timeout 200 "$bin" --config kernelbot.toml --kernels saxpy,transpose \
        --max-candidates 12) >"$OUT/logs/throughput-$which-$i.out" 2>"$OUT/logs/throughput-$which-$i.err"
      echo "=== $which judge, run $i, exit $?"; cat "$OUT/logs/throughput-$which-$i.out"
      tail -2 "$OUT/logs/throughput-$which-$i.err"
    done
  done
fi

if [ "$stage" = session ]; then
  (cd build && timeout 120 ctest -R "HarnessGpu.ASession" --output-on-failure -j1) >"$OUT/logs/session_test.log" 2>&1
  echo "session test exit code $?" >>"$OUT/logs/session_test.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Failure|Expected|Which is|Actual" "$OUT/logs/session_test.log" | head -20
  cp examples/kernelbot.toml examples/kernelbot-one-job-judge.toml
  printf '\n[verify]\npersistent_judge = false\n' >>examples/kernelbot-one-job-judge.toml
  for i in $(seq 1 "${ROUNDS:-2}"); do
    for cfg in kernelbot.toml kernelbot-one-job-judge.toml; do
      (cd examples && timeout 200 "$here/build/bench/search_throughput" --config "$cfg" --kernels saxpy,transpose \
        --max-candidates 12) >"$OUT/logs/throughput-$cfg-$i.out" 2>"$OUT/logs/throughput-$cfg-$i.err"
      echo "=== $cfg run $i exit $?"; cat "$OUT/logs/throughput-$cfg-$i.out"; tail -2 "$OUT/logs/throughput-$cfg-$i.err"
    done
  done
  rm -f examples/kernelbot-one-job-judge.toml
fi

if [ "$stage" = recheck ]; then
  (cd build && timeout 150 ctest -R "HarnessGpu" --output-on-failure -j1) >"$OUT/logs/harness_tests.log" 2>&1
  echo "harness tests exit code $?" >>"$OUT/logs/harness_tests.log"
  grep -E "tests passed|Failed|exit code" "$OUT/logs/harness_tests.log" | tail -6
  (cd build && timeout 240 ctest -R "EvalGpu|DeviceChecksGpu" --output-on-failure -j1) >"$OUT/logs/eval_tests.log" 2>&1
  echo "eval tests exit code $?" >>"$OUT/logs/eval_tests.log"
  grep -E "tests passed|Failed|exit code" "$OUT/logs/eval_tests.log" | tail -8
  cp examples/kernelbot.toml examples/kernelbot-one-job-judge.toml
  printf '\n[verify]\npersistent_judge = false\n' >>examples/kernelbot-one-job-judge.toml
  for cfg in kernelbot.toml kernelbot-one-job-judge.toml; do
    (cd examples && timeout 120 "$here/build/bench/search_throughput" --config "$cfg" --kernels saxpy,transpose \
      --max-candidates 12) >"$OUT/logs/throughput-$cfg.out" 2>"$OUT/logs/throughput-$cfg.err"
    echo "=== $cfg exit $?"; sed -n 1,7p "$OUT/logs/throughput-$cfg.out"
  done
  rm -f examples/kernelbot-one-job-judge.toml
fi

if [ "$stage" = gpus ]; then
  tp() {  # name, then search_throughput's extra arguments
    local name=$1; shift
    (cd examples && timeout 150 "$here/build/bench/search_throughput" --config kernelbot.toml \
      --kernels "${KERNELS:-saxpy,transpose}" --max-candidates 12 "$@") >"$OUT/logs/tp-$name.out" 2>"$OUT/logs/tp-$name.err"
    echo "=== $name exit $?"; cat "$OUT/logs/tp-$name.out"; tail -2 "$OUT/logs/tp-$name.err"
  }
  tp warmup --all-gpus
  for i in $(seq 1 "${ROUNDS:-2}"); do
    tp "one-gpu-$i"
    tp "all-gpus-confined-$i" --all-gpus
    KERNELBOT_SANDBOX_EVERY_GPU=1 tp "all-gpus-every-gpu-visible-$i" --all-gpus
    # The same two searches as two separate processes, one per GPU: alone, then at once (what
    # the host shares, apart from kernelbot's process).
    CUDA_VISIBLE_DEVICES=0 KERNELS=saxpy tp "process-saxpy-alone-$i"
    CUDA_VISIBLE_DEVICES=1 KERNELS=transpose tp "process-transpose-alone-$i"
    CUDA_VISIBLE_DEVICES=0 KERNELS=saxpy tp "process-saxpy-beside-$i" &
    CUDA_VISIBLE_DEVICES=1 KERNELS=transpose tp "process-transpose-beside-$i" &
    wait
  done
fi

if [ "$stage" = contention ]; then
  { echo "nproc $(nproc)"; cat /sys/fs/cgroup/cpu.max 2>/dev/null | sed 's/^/cgroup cpu.max /'
    grep -m1 'model name' /proc/cpuinfo; grep MHz /proc/cpuinfo | sort | uniq -c | sort -rn | head -3
    cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null | sed 's/^/governor /'
    nvidia-smi --query-gpu=index,pci.bus_id,persistence_mode,power.limit,clocks.sm --format=csv
    nvidia-smi topo -m; } >"$OUT/logs/host.txt" 2>&1
  cat "$OUT/logs/host.txt"
  for i in $(seq 1 "${ROUNDS:-2}"); do
    "$here/build/bench/host_contention" >"$OUT/logs/contention-$i.out" 2>"$OUT/logs/contention-$i.err"
    echo "=== round $i exit $?"; cat "$OUT/logs/contention-$i.out"; tail -2 "$OUT/logs/contention-$i.err"
  done
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
      "$kb" --config "$cfg" --json eval --kernel saxpy --candidate tests/profiler/candidates/saxpy/saxpy_fast.cu \
        >"$OUT/logs/overhead-$mode-$i.json" 2>"$OUT/logs/overhead-$mode-$i.err"
      rc=$?
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      echo "$mode run $i: exit $rc, $ms ms, $(grep -o '"speedup": *[0-9.]*' "$OUT/logs/overhead-$mode-$i.json" | head -1)," \
           "$(grep -o '"run_s": *[0-9.]*' "$OUT/logs/overhead-$mode-$i.json" | head -1)" | tee -a "$OUT/logs/overhead.txt"
    done
  done
fi
if [ "$stage" = verdicts ]; then
  (cd build && timeout ${HARNESS_TIMEOUT:-170} ctest -R "HarnessGpu" --output-on-failure -j1) >"$OUT/logs/harness_tests.log" 2>&1
  echo "harness tests exit code $?" >>"$OUT/logs/harness_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#" "$OUT/logs/harness_tests.log" | tail -30
  mkdir -p "$OUT/logs/evidence"
  (cd build && KB_TEST_SAVE_DIR="$OUT/logs/evidence" timeout ${EVAL_TIMEOUT:-380} ctest -R "${TESTS:-EvalGpu}" --output-on-failure -j1) \
    >"$OUT/logs/eval_tests.log" 2>&1
  echo "eval tests exit code $?" >>"$OUT/logs/eval_tests.log"
  grep -E "tests passed|Failed|\*\*\*|exit code|Test +#|^\[ (accepted|rejected|wrong_result|crashed|not_faster|timed_out) \]" \
    "$OUT/logs/eval_tests.log" | tail -60
fi

if [ "$stage" = cost ]; then
  # Wall time of one `kernelbot eval` (compile cached after the first run) and what the judge spent.
  work=/tmp/kernelbot-eval-gpu-test
  for i in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$kb" --config "$work/kernelbot.toml" --json eval --kernel saxpy --candidate tests/profiler/candidates/saxpy/saxpy_fast.cu \
      >"$OUT/logs/cost-$i.json" 2>"$OUT/logs/cost-$i.err"
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "run $i: exit $rc, $ms ms, $(grep -o '"speedup": *[0-9.]*' "$OUT/logs/cost-$i.json" | tail -1)," \
         "$(grep -o '"run_s": *[0-9.]*' "$OUT/logs/cost-$i.json" | head -1)" | tee -a "$OUT/logs/cost.txt"
    # Where the evaluation's time went, per phase of its harness jobs (EvalResult::phase_s).
    python3 - "$OUT/logs/cost-$i.json" <<'PY' | tee -a "$OUT/logs/cost.txt"
import json, sys
def find(j):
    if isinstance(j, dict):
        if "phase_s" in j and isinstance(j["phase_s"], dict): return j["phase_s"]
        for v in j.values():
            r = find(v)
            if r: return r
    elif isinstance(j, list):
        for v in j:
            r = find(v)
            if r: return r
    return None
try: p = find(json.load(open(sys.argv[1])))
except Exception as e: p = {"unreadable": str(e)}
print("  phases:", ", ".join(f"{k} {v:.3f} s" if isinstance(v, float) else f"{k} {v}" for k, v in (p or {}).items()))
PY
  done
fi

if [ "$stage" = publish ]; then
  rm -rf /tmp/pub && cp -r examples /tmp/pub && rm -rf /tmp/pub/.kernelbot
  (cd /tmp/pub && git init -q && git add -A && git -c user.email=kb@example.com -c user.name=kb commit -qm base) \
    >"$OUT/logs/pub-git.log" 2>&1
  (cd /tmp/pub && "$kb" run --kernel saxpy --dry-run) >"$OUT/logs/pub-run.out" 2>"$OUT/logs/pub-run.err"
  echo "run --dry-run exit $?" | tee -a "$OUT/logs/publish.txt"
  (cd /tmp/pub && "$kb" pr --kernel saxpy --dry-run) >"$OUT/logs/pub-pr.out" 2>"$OUT/logs/pub-pr.err"
  echo "pr exit $?" | tee -a "$OUT/logs/publish.txt"
  grep -iE "re-verif|dry-run PR|no PR" "$OUT/logs/pub-pr.out" "$OUT/logs/pub-pr.err" | tail -5 | tee -a "$OUT/logs/publish.txt"
  echo "// edited after the search" >> /tmp/pub/src/saxpy.cu
  (cd /tmp/pub && "$kb" pr --kernel saxpy --dry-run) >"$OUT/logs/pub-pr2.out" 2>"$OUT/logs/pub-pr2.err"
  echo "pr after the source changed exit $?" | tee -a "$OUT/logs/publish.txt"
  tail -3 "$OUT/logs/pub-pr2.err" | tee -a "$OUT/logs/publish.txt"
  for c in saxpy_fast saxpy_reads_past_end; do
    (cd examples && timeout 150 "$kb" eval --kernel saxpy --candidate "$here/tests/profiler/candidates/saxpy/$c.cu" --sanitize) \
      >"$OUT/logs/sanitize-$c.out" 2>"$OUT/logs/sanitize-$c.err"
    echo "eval --sanitize $c exit $?" | tee -a "$OUT/logs/publish.txt"
    grep -iE "verdict|sanitizer|accepted|rejected" "$OUT/logs/sanitize-$c.out" | head -6 | tee -a "$OUT/logs/publish.txt"
  done
fi

if [ "$stage" = stability ]; then
  # saxpy alone at n=16M, as `kernelbot profile` times it (the judge and the original's server in
  # the namespace sandbox), five separate runs; then ncu on the same kernel in the same build.
  rm -rf /tmp/stab && cp -r examples /tmp/stab && rm -rf /tmp/stab/.kernelbot
  sed -i 's/^sizes = \[{ n = 1048576 }, { n = 16777216 }, { n = 1000003 }\]/sizes = [{ n = 16777216 }]/' /tmp/stab/kernelbot.toml
  grep -n "n = 16777216" /tmp/stab/kernelbot.toml | tee "$OUT/logs/stability.txt"
  for i in 1 2 3 4 5; do
    (cd /tmp/stab && "$kb" --json profile --kernel saxpy) >"$OUT/logs/profile-$i.json" 2>"$OUT/logs/profile-$i.err"
    echo "profile run $i: exit $?, $(grep -o '"median_us": *[0-9.]*' "$OUT/logs/profile-$i.json" | head -1)" \
      | tee -a "$OUT/logs/stability.txt"
  done
  lib=$(find /tmp/stab/.kernelbot -name '*.so' | head -1)
  echo "library: $lib" | tee -a "$OUT/logs/stability.txt"
  python3 - "$lib" "$OUT/logs/ncu-job.json" <<'PY'
import json, sys
n = 16777216
job = {"mode": "time_baseline", "kernel": "saxpy", "baseline_library": sys.argv[1], "size_labels": [f"n={n}"],
       "args": [{"name": "x", "role": "input", "dtype": "float32", "counts": [n]},
                {"name": "y", "role": "inout", "dtype": "float32", "counts": [n], "rtol": 1e-4, "atol": 1e-5},
                {"name": "a", "role": "scalar", "dtype": "float32", "values": ["2.5"]},
                {"name": "n", "role": "size", "dtype": "int32", "values": [str(n)]}],
       "bench": {"warmup_runs": 3, "min_samples": 5, "max_samples": 20, "min_time_s": 0.0, "timeout_s": 5}}
json.dump(job, open(sys.argv[2], "w"))
PY
  ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  timeout 150 "$ncu_bin" --target-processes all --clock-control none --cache-control all -k regex:saxpy -c 10 --csv \
    --metrics gpu__time_duration.sum "$here/build/bot/kernelbot-harness" --job "$OUT/logs/ncu-job.json" \
    --out "$OUT/logs/ncu-result.json" >"$OUT/logs/ncu.csv" 2>"$OUT/logs/ncu.err"
  echo "ncu exit $?" | tee -a "$OUT/logs/stability.txt"
  grep gpu__time_duration "$OUT/logs/ncu.csv" | tail -10 | tee -a "$OUT/logs/stability.txt"
fi
tar -C "$OUT" -czf "$OUT/logs-$stage.tar.gz" logs && rm -rf "$OUT/logs"
