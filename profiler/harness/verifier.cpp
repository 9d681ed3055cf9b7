#include "profiler/harness/verifier.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>

#include "profiler/harness/activity_monitor.h"
#include "profiler/harness/arg_set.h"
#include "profiler/harness/cuda_check.h"

namespace kb::harness {
namespace {

// One call's plan: which size, which seed, which distribution.
struct TrialPlan {
  int64_t trial = 0;  // 0-based trial number
  size_t size = 0;
  uint64_t seed = 0;
  Distribution distribution = Distribution::uniform;
};

std::string describe_trial(const RunnerJob& job, const TrialPlan& p, int64_t trials) {
  return "trial " + std::to_string(p.trial + 1) + " of " + std::to_string(trials) + " at size " +
         job.raw.size_labels[p.size] + " (distribution " + to_string(p.distribution) + ", seed " +
         std::to_string(p.seed) + ")";
}

// Runs `fn` and waits as a caller would: an event on the legacy default stream. Under CUPTI
// tracing, any activity of the call that ended after that event completed is work the caller was
// never told to wait for. Without a monitor (another tool holds CUPTI) it only runs and waits.
std::string run_and_check_streams(EntryFn fn, ArgSet& args, Who who, ActivityMonitor* tracing) {
  cuda_check(cudaDeviceSynchronize(), "synchronizing before a verification call");
  if (!tracing) {
    call_variant(fn, args.args(), who);
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
    return "";
  }
  ActivityMonitor& monitor = *tracing;
  monitor.take();  // discard the harness's own uploads and poison fills
  cudaEvent_t done;
  cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "creating an event");
  std::unique_ptr<CUevent_st, void (*)(cudaEvent_t)> guard(done, [](cudaEvent_t e) { cudaEventDestroy(e); });
  const uint64_t begin = monitor.timestamp();
  call_variant(fn, args.args(), who);
  {
    CallScope scope(who, "");
    check_variant_sync(cudaEventRecord(done, cudaStreamLegacy), who, "recording the completion event");
    check_variant_sync(cudaEventSynchronize(done), who, "");
  }
  const uint64_t complete = monitor.timestamp();
  {
    CallScope scope(who, "");
    check_variant_sync(cudaDeviceSynchronize(), who, "");
  }
  const auto records = records_since(monitor.take(), begin);
  const ActivityRecord* latest = nullptr;
  for (const auto& r : records)
    if (r.end > complete + kLateWorkSlackNs && (!latest || r.end > latest->end)) latest = &r;
  if (!latest) return "";
  const double late_us = static_cast<double>(latest->end - complete) / 1e3;
  const std::string what = latest->kind == ActivityRecord::Kind::kernel ? "kernel " + latest->name : latest->name;
  return "the " + std::string(to_string(who)) + " does work on a stream the caller does not wait for: " + what +
         " ended " + format_number(late_us) +
         " us after the launcher's work was complete on the default stream (use the default stream, or make it "
         "wait for your streams before returning)";
}

OutputError& output_entry(VerificationReport& report, const RunnerArg& a) {
  for (auto& o : report.outputs)
    if (o.name == a.name) return o;
  OutputError o;
  o.name = a.name;
  o.dtype = to_string(a.type);
  o.rtol = a.tolerance.rtol;
  o.atol = a.tolerance.atol;
  report.outputs.push_back(o);
  return report.outputs.back();
}

}  // namespace

VerificationOutcome verify_candidate(const RunnerJob& job, EntryFn baseline, EntryFn candidate, bool strict,
                                     VerificationReport& report) {
  // compute-sanitizer holds the process's only CUPTI subscription, so under it the side-stream
  // check is left to the normal (traced) verification run and this one only runs the calls.
  ActivityMonitor* monitor = job.raw.under_sanitizer ? nullptr : &ActivityMonitor::instance();
  if (monitor) monitor->enable();
  // Tracing stays off outside verification (timing must not pay for it). After a crash the
  // context is gone and CUPTI is left alone.
  struct TracingOff {
    ActivityMonitor* m;
    ~TracingOff() {
      if (m && std::uncaught_exceptions() == 0) m->disable();
    }
  } tracing_off{monitor};
  const size_t sizes = job.size_count();
  const int64_t trials = job.raw.trials * (strict ? 3 : 1);
  report = VerificationReport{};
  report.trials = trials;
  report.sizes = job.raw.size_labels;
  for (const auto& a : job.args)
    if (a.is_written()) output_entry(report, a);

  // Buffers live for the whole verification: the same addresses in every trial.
  std::vector<std::unique_ptr<ArgSet>> base_sets, cand_sets;
  for (size_t s = 0; s < sizes; ++s) {
    base_sets.push_back(std::make_unique<ArgSet>(job, s));
    cand_sets.push_back(std::make_unique<ArgSet>(job, s));
  }

  VerificationOutcome outcome;
  for (int64_t t = 0; t < trials; ++t) {
    for (size_t s = 0; s < sizes; ++s) {
      TrialPlan p;
      p.trial = t;
      p.size = s;
      p.seed = job.raw.seed + static_cast<uint64_t>(t) * sizes + s;
      p.distribution = job.distributions[static_cast<size_t>(t + static_cast<int64_t>(s)) % job.distributions.size()];
      const std::string trial_text = describe_trial(job, p, trials);
      set_phase("verification " + trial_text);
      spdlog::debug("verifying {}", trial_text);
      report.seeds.push_back(p.seed);
      if (std::find(report.distributions.begin(), report.distributions.end(), to_string(p.distribution)) ==
          report.distributions.end())
        report.distributions.push_back(to_string(p.distribution));

      ArgSet& base = *base_sets[s];
      ArgSet& cand = *cand_sets[s];
      std::vector<HostBuffer> inputs(job.args.size());
      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        const Distribution d = a.has_distribution ? a.distribution : p.distribution;
        if (a.role == ArgRole::input || a.role == ArgRole::inout) {
          inputs[i].resize(base.bytes(i));
          fill_random(a.type, d, p.seed, i, inputs[i].data(), base.count(i));
          base.upload(i, inputs[i]);
          cand.upload(i, inputs[i]);
        } else if (a.role == ArgRole::output) {
          base.poison(i);
          cand.poison(i);
        } else if (a.values[s].empty()) {
          const double v = random_scalar(a.type, d, p.seed, i);
          base.set_scalar(i, v);
          cand.set_scalar(i, v);
        }
      }

      run_and_check_streams(baseline, base, Who::baseline, monitor);
      const std::string late = run_and_check_streams(candidate, cand, Who::candidate, monitor);
      if (!late.empty()) {
        outcome = {Verdict::rejected, late + " (" + trial_text + ")"};
        report.failure = outcome.reason;
        return outcome;
      }

      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (a.role != ArgRole::input || base.bytes(i) == 0) continue;
        const auto base_change = compare_input(a.type, inputs[i].data(), base.download(i).data(), base.count(i));
        if (base_change.changed > 0) {
          outcome = {Verdict::infra_error, describe_input_change(a.name, "original kernel", base_change) +
                                               ": declare it role = \"inout\" in the [[kernel]] spec (" + trial_text +
                                               ")"};
          report.failure = outcome.reason;
          return outcome;
        }
        const auto change = compare_input(a.type, inputs[i].data(), cand.download(i).data(), cand.count(i));
        if (change.changed > 0) {
          outcome = {Verdict::wrong_result, describe_input_change(a.name, "candidate", change) + " (" + trial_text + ")"};
          report.failure = outcome.reason;
          return outcome;
        }
      }
      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (!a.is_written() || base.bytes(i) == 0) continue;
        const HostBuffer ref = base.download(i);
        const HostBuffer got = cand.download(i);
        const OutputComparison c = compare_output(a.type, ref.data(), got.data(), base.count(i), a.tolerance);
        OutputError& o = output_entry(report, a);
        o.elements += c.elements;
        o.mismatches += c.mismatches;
        if (std::isfinite(c.max_abs_error)) o.max_abs_error = std::max(o.max_abs_error, c.max_abs_error);
        if (std::isfinite(c.max_rel_error)) o.max_rel_error = std::max(o.max_rel_error, c.max_rel_error);
        report.worst_abs_error = std::max(report.worst_abs_error, o.max_abs_error);
        report.worst_rel_error = std::max(report.worst_rel_error, o.max_rel_error);
        if (!c.passed()) {
          outcome = {Verdict::wrong_result, describe_output_failure(a.name, c, a.tolerance) + " (" + trial_text + ")"};
          report.failure = outcome.reason;
          return outcome;
        }
      }
    }
  }
  report.passed = true;
  report.strict_pass = strict;
  spdlog::info("verification passed: {} trials x {} sizes, worst abs error {}, worst rel error {}", trials, sizes,
               format_number(report.worst_abs_error), format_number(report.worst_rel_error));
  return outcome;
}

}  // namespace kb::harness
