#include "profiler/harness/job_runner.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "profiler/harness/activity_monitor.h"
#include "profiler/harness/arg_set.h"
#include "profiler/harness/calibration.h"
#include "profiler/harness/clock_monitor.h"
#include "profiler/harness/cuda_check.h"
#include "profiler/harness/metrics_collector.h"
#include "profiler/harness/timer.h"
#include "profiler/harness/timing_compare.h"
#include "profiler/harness/variant_library.h"
#include "profiler/harness/verifier.h"

namespace kb::harness {
namespace {

// Timing and metrics use their own inputs, apart from every verification seed.
constexpr uint64_t kTimingSeedSalt = 0x7157A11CE5EEDull;

void fill_inputs(const RunnerJob& job, ArgSet& args) {
  const uint64_t seed = job.raw.seed ^ kTimingSeedSalt;
  const Distribution d = job.distributions.front();
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    const Distribution di = a.has_distribution ? a.distribution : d;
    if (a.role == ArgRole::input || a.role == ArgRole::inout) {
      HostBuffer data(args.bytes(i));
      fill_random(a.type, di, seed, i, data.data(), args.count(i));
      args.upload(i, data);
    } else if (a.role == ArgRole::output) {
      args.poison(i);
    } else if (a.values[args.size_index()].empty()) {
      args.set_scalar(i, random_scalar(a.type, di, seed, i));
    }
  }
}

// Compares what the last timed calls of both variants left in their written buffers.
std::string compare_timed_outputs(const RunnerJob& job, ArgSet& base, ArgSet& cand) {
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (!a.is_written() || base.bytes(i) == 0) continue;
    const HostBuffer ref = base.download(i), got = cand.download(i);
    const OutputComparison c = compare_output(a.type, ref.data(), got.data(), base.count(i), a.tolerance);
    if (!c.passed()) return describe_output_failure(a.name, c, a.tolerance);
  }
  return "";
}

void run_timing(const RunnerJob& job, EntryFn baseline, EntryFn candidate, EvalResult& result) {
  ClockMonitor clocks(job.raw.device);
  if (!clocks.available()) spdlog::warn("{}: timing samples are not checked for clock sag", clocks.unavailable_reason());
  Timer timer(job, clocks, ActivityMonitor::instance());
  std::vector<SizeOutcome> outcomes;
  for (size_t s = 0; s < job.size_count(); ++s) {
    const std::string& label = job.raw.size_labels[s];
    set_phase("timing at size " + label);
    ArgSet base(job, s);
    fill_inputs(job, base);
    base.snapshot_inouts();
    std::unique_ptr<ArgSet> cand;
    std::vector<TimedVariant> variants = {{Who::baseline, baseline, &base}};
    if (candidate) {
      cand = std::make_unique<ArgSet>(job, s);
      fill_inputs(job, *cand);
      cand->snapshot_inouts();
      variants.push_back({Who::candidate, candidate, cand.get()});
    }
    std::vector<CallProfile> profiles;
    for (const auto& v : variants) profiles.push_back(timer.profile_calls(v, 3));
    const std::vector<TimingStats> stats = timer.measure(variants, profiles);

    SizeTiming st;
    st.size_label = label;
    st.baseline = stats[0];
    st.bytes_moved = job.raw.bytes.empty() ? 0 : job.raw.bytes[s];
    st.flops = job.raw.flops.empty() ? 0 : job.raw.flops[s];
    st.floor_us = roofline_floor_us(st.bytes_moved, st.flops, job.raw.copy_bandwidth_gbps, job.raw.fp32_tflops);
    st.baseline_pct_of_floor = percent_of_floor(st.floor_us, st.baseline.median_us);
    if (candidate) {
      st.candidate = stats[1];
      st.speedup = st.candidate.median_us > 0 ? st.baseline.median_us / st.candidate.median_us : 0;
      st.significant = speedup_is_significant({st.baseline.median_us, st.baseline.q1_us, st.baseline.q3_us, st.baseline.noise},
                                              {st.candidate.median_us, st.candidate.q1_us, st.candidate.q3_us, st.candidate.noise});
      st.candidate_pct_of_floor = percent_of_floor(st.floor_us, st.candidate.median_us);
      outcomes.push_back({label, st.speedup, st.significant});
      spdlog::info("{}: original {:.2f} us, candidate {:.2f} us, speedup {:.3f}x{}", label, st.baseline.median_us,
                   st.candidate.median_us, st.speedup, st.significant ? " (significant)" : "");
    } else {
      spdlog::info("{}: {:.2f} us median over {} samples (noise {:.2f}%, {})", label, st.baseline.median_us,
                   st.baseline.samples, st.baseline.noise * 100, st.baseline.stop_reason);
    }
    result.timings.push_back(st);
    if (candidate) {
      const std::string differ = compare_timed_outputs(job, base, *cand);
      if (!differ.empty()) {
        result.verdict = Verdict::wrong_result;
        result.reason = "the outputs of the timed calls differ at size " + label + ": " + differ;
        return;
      }
    }
  }
  if (!candidate) {
    result.verdict = Verdict::pending;
    result.reason = "timed the original at " + std::to_string(job.size_count()) + " size sets";
    return;
  }
  std::vector<double> ratios;
  for (const auto& o : outcomes) ratios.push_back(o.speedup);
  result.speedup = geometric_mean(ratios);
  const SpeedupJudgement j = judge_speedup(outcomes, job.raw.min_speedup);
  result.verdict = j.accepted ? Verdict::accepted : Verdict::not_faster;
  result.reason = j.reason;
}

KernelMetrics metrics_of(const RunnerJob& job, EntryFn fn, Who who, Timer& timer) {
  const size_t s = metrics_size_index(job);
  set_phase("hardware metrics at size " + job.raw.size_labels[s]);
  ArgSet args(job, s);
  fill_inputs(job, args);
  args.snapshot_inouts();
  call_variant(fn, args.args(), who);  // loads the modules outside the profiled call
  {
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
  }
  const CallProfile profile = timer.profile_calls({who, fn, &args}, 1);
  args.restore_inouts();
  cuda_check(cudaDeviceSynchronize(), "restoring inputs");
  KernelMetrics m = collect_metrics(fn, args, who, job.raw.device);
  m.size_label = job.raw.size_labels[s];
  const ActivityRecord* longest = nullptr;
  int64_t kernels = 0;
  for (const auto& r : profile.records) {
    if (r.kind != ActivityRecord::Kind::kernel) continue;
    ++kernels;
    if (!longest || r.end - r.start > longest->end - longest->start) longest = &r;
  }
  if (longest) {
    m.kernel_name = longest->name;
    m.registers_per_thread = longest->registers_per_thread;
    m.static_shared_bytes = longest->static_shared_bytes;
    m.dynamic_shared_bytes = longest->dynamic_shared_bytes;
    m.local_bytes_per_thread = longest->local_bytes_per_thread;
  }
  if (m.kernel_count == 0) m.kernel_count = kernels;
  return m;
}

}  // namespace

void run_job(const RunnerJob& job, EvalResult& result) {
  const auto& raw = job.raw;
  result.device = describe_device(raw.device);  // "no CUDA device: ..." when there is none
  cuda_check(cudaSetDevice(raw.device), "selecting the CUDA device");
  cuda_check(cudaFree(nullptr), "creating the CUDA context");
  result.device.copy_bandwidth_gbps = raw.copy_bandwidth_gbps;
  result.device.fp32_tflops = raw.fp32_tflops;

  VariantLibrary baseline;
  {
    CallScope scope(Who::baseline, "loading " + raw.baseline_library);
    try {
      baseline = load_variant_library(raw.baseline_library);
    } catch (const LibraryError& e) {
      throw HarnessError(std::string("the original's library: ") + e.what());
    }
  }
  VariantLibrary candidate;
  if (!raw.candidate_library.empty()) {
    CallScope scope(Who::candidate, "loading " + raw.candidate_library);
    try {
      candidate = load_variant_library(raw.candidate_library);
    } catch (const LibraryError& e) {
      result.verdict = Verdict::compile_error;
      result.reason = std::string("the candidate's library cannot be loaded: ") + e.what();
      return;
    }
  }

  if (raw.mode == "verify" || raw.mode == "verify_and_time") {
    const VerificationOutcome v = verify_candidate(job, baseline.entry, candidate.entry, raw.strict, result.verification);
    if (v.verdict != Verdict::pending) {
      result.verdict = v.verdict;
      result.reason = v.reason;
      return;
    }
    if (raw.mode == "verify") {
      result.verdict = Verdict::pending;
      result.reason = std::string(raw.strict ? "strict " : "") + "verification passed";
      return;
    }
    run_timing(job, baseline.entry, candidate.entry, result);
  } else if (raw.mode == "time_baseline") {
    run_timing(job, baseline.entry, nullptr, result);
  } else {  // metrics
    ClockMonitor clocks(raw.device);
    Timer timer(job, clocks, ActivityMonitor::instance());
    result.baseline_metrics = metrics_of(job, baseline.entry, Who::baseline, timer);
    if (candidate.entry) result.candidate_metrics = metrics_of(job, candidate.entry, Who::candidate, timer);
    result.verdict = Verdict::pending;
    result.reason = "hardware metrics: " + result.baseline_metrics.status;
  }
}

}  // namespace kb::harness
