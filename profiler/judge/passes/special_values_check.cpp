#include "profiler/judge/passes/special_values_check.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "common/os_random.h"
#include "profiler/judge/inputs/special_values_fill.h"
#include "profiler/judge/outputs/device_checks.h"
#include "profiler/judge/outputs/special_outputs.h"
#include "profiler/judge/plans/special_values_plan.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

bool special_input(const DecodedArg& a) { return a.is_read() && dtype_is_float(a.type) && !a.has_range(); }

// prepare(), then the special values mixed into input `i` of both sets and its pristine copy
// alike (a pure function of seed, buffer and index).
void prepare_special(const DecodedJob& job, const TrialPlan& p, size_t i, SizeChecks& checks, ArgSet& base,
                     ArgSet& cand) {
  prepare(job, p, checks, base, cand);
  const int t = static_cast<int>(job.args[i].type);
  for (void* buffer : {base.device(i), cand.device(i), checks.pristine[i].get()})
    if (buffer)
      cuda_check(launch_mix_special_values(buffer, t, base.count(i), p.seed, i, cudaStreamLegacy),
                 "mixing special values into an input");
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "preparing special values");
}

// The original's outputs on |special inputs| into checks.scale (error_scale = "abs_inputs"), as
// compute_error_scale does for ordinary inputs. False when the original faults.
bool special_error_scale(const DecodedJob& job, const Servers& servers, const TrialPlan& p, size_t input,
                         SizeChecks& checks, ArgSet& base, ArgSet& cand) {
  prepare_special(job, p, input, checks, base, cand);
  std::vector<double> scalars(job.args.size());
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    scalars[i] = base.scalar(i);
    if (a.is_read())
      cuda_check(launch_abs_in_place(base.device(i), static_cast<int>(a.type), base.count(i), cudaStreamLegacy),
                 "taking |inputs|");
    else if (a.is_value() && dtype_is_float(a.type)) base.set_scalar(i, std::fabs(base.scalar(i)));
  }
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "taking |inputs|");
  const Reply r = call(*servers.baseline, static_cast<int>(p.size), base, false, servers.timeout_s);
  for (size_t i = 0; i < job.args.size(); ++i)
    if (job.args[i].is_value()) base.set_scalar(i, scalars[i]);
  if (r.status == Status::fault) return false;
  for (size_t i = 0; i < job.args.size(); ++i)
    if (checks.scale[i].get()) copy_device(checks.scale[i].get(), base.device(i), base.bytes(i));
  return true;
}

// A faulted original's server is replaced, and every slot lent to the fresh one again.
void restart_original(const DecodedJob& job, const Servers& servers,
                      const std::vector<std::unique_ptr<ArgSet>>& base_sets) {
  VariantProcess* fresh = servers.restart_original();
  for (size_t s = 0; s < job.size_count(); ++s)
    bind_slot(*fresh, static_cast<int>(s), *base_sets[s], servers.timeout_s);
}

// Why output `i` of the original is not defined on these inputs, or "" when it is: `first` holds
// its first call's values, `base` its second's. Decided on the GPU when the two calls agree and
// the output holds a nonzero finite value (the usual case: nothing read back); otherwise the
// outputs are read back and special_outputs.h decides and explains.
std::string undefined_output(const DecodedArg& a, const JudgeBuffer& first, const ArgSet& base, size_t i,
                             const JudgeBuffer& scale, DeviceScratch& scratch) {
  auto* stats = static_cast<DeviceOutputStats*>(scratch.stats());
  uint64_t poison = 0;
  fill_poison(a.type, &poison, 1);
  cuda_check(cudaMemsetAsync(stats, 0, sizeof *stats, cudaStreamLegacy), "clearing the comparison");
  cuda_check(launch_output_stats(first.get(), base.device(i), scale.get(), static_cast<int>(a.type), base.count(i),
                                 a.tolerance.rtol, a.tolerance.atol, poison, stats, cudaStreamLegacy),
             "comparing the original with itself");
  DeviceOutputStats got;
  cuda_check(cudaMemcpy(&got, stats, sizeof got, cudaMemcpyDeviceToHost), "reading the comparison");
  if (got.mismatches == 0 && got.max_ref_bits != 0) return "";
  const HostBuffer one = first.download(), two = base.download(i);
  const HostBuffer sc = scale.get() ? scale.download() : HostBuffer{};
  const SpecialOutputs o = original_outputs_defined(a.type, a.name, one.data(), two.data(), base.count(i), a.tolerance,
                                                    sc.empty() ? nullptr : sc.data());
  return o.defined ? "" : o.why;
}

}  // namespace

VerificationOutcome check_special_values(const DecodedJob& job, const Servers& servers,
                                         const std::vector<std::unique_ptr<ArgSet>>& base_sets,
                                         const std::vector<std::unique_ptr<ArgSet>>& cand_sets,
                                         std::vector<SizeChecks>& checks, DeviceScratch& scratch,
                                         VerificationReport& report) {
  std::vector<size_t> inputs;
  std::vector<std::string> names;
  for (size_t i = 0; i < job.args.size(); ++i) {
    names.push_back(job.args[i].name);
    if (special_input(job.args[i])) inputs.push_back(i);
  }
  if (inputs.empty()) return {};  // no float input: nothing special to give
  const bool traced = !job.raw.under_sanitizer;
  const bool scaled = needs_error_scale(job);
  std::vector<SpecialValuesCase> checked;
  for (const SpecialValuesCase& c : plan_special_values(job.size_count(), inputs)) {
    const size_t s = c.size;
    ArgSet& base = *base_sets[s];
    ArgSet& cand = *cand_sets[s];
    const int slot = static_cast<int>(s);
    const std::string& label = job.raw.size_labels[s];
    const std::string& input = job.args[c.input].name;
    TrialPlan p;
    p.size = s;
    p.seed = random_u64();
    p.distribution = job.distributions.front();
    const std::string context = "at size " + label + ", NaN, +-Inf, -0 and denormals mixed into " + input + " (seed " +
                                std::to_string(p.seed) + ")";
    const std::string skipped = "special values in " + input + " at size " + label + ": ";
    set_phase("special values in " + input + " at size " + label);
    spdlog::debug("special values {}", context);

    if (scaled && !special_error_scale(job, servers, p, c.input, checks[s], base, cand)) {
      report.skipped_checks.push_back(skipped + "the original faults on them");
      restart_original(job, servers, base_sets);
      continue;
    }
    // The original, twice: do its outputs stay defined?
    prepare_special(job, p, c.input, checks[s], base, cand);
    const Reply first = call(*servers.baseline, slot, base, false, servers.timeout_s);
    if (first.status == Status::fault) {
      report.skipped_checks.push_back(skipped + "the original faults on them (" + fault_text(first) + ")");
      restart_original(job, servers, base_sets);
      continue;
    }
    std::vector<JudgeBuffer> first_outputs;
    for (size_t i = 0; i < job.args.size(); ++i) {
      first_outputs.emplace_back(job.args[i].is_written() ? base.bytes(i) : 0);
      if (first_outputs[i].get()) copy_device(first_outputs[i].get(), base.device(i), base.bytes(i));
    }
    prepare_special(job, p, c.input, checks[s], base, cand);
    const BothCalls calls = call_both(job, servers, slot, base, slot, cand, traced, context);
    if (calls.original_faulted) {
      report.skipped_checks.push_back(skipped + "the original faults on them the second time");
      restart_original(job, servers, base_sets);
      continue;
    }
    if (calls.outcome.failed())
      return {calls.outcome.verdict, lead_with("special values", context, calls.outcome.reason)};

    std::string undefined;
    for (size_t i = 0; i < job.args.size() && undefined.empty(); ++i)
      if (first_outputs[i].get())
        undefined = undefined_output(job.args[i], first_outputs[i], base, i, checks[s].scale[i], scratch);
    if (!undefined.empty()) {
      spdlog::info("special values in {} at size {} skipped: {}", input, label, undefined);
      report.skipped_checks.push_back(skipped + undefined);
      continue;
    }
    // Errors beside infinities and denormals are not the ordinary trials' errors: kept out of the
    // report's worst errors.
    VerificationReport scratch_report;
    const VerificationOutcome outcome = check_call(job, base, cand, checks[s], scratch, scratch_report, context);
    if (outcome.failed()) return {outcome.verdict, lead_with("special values", context, outcome.reason)};
    checked.push_back(c);
  }
  if (!checked.empty())
    report.passes.push_back("special values (NaN, +-Inf, -0, denormals) mixed into one input at a time (" +
                            describe_special_values_cases(checked, job.raw.size_labels, names) +
                            "): NaN or Inf exactly where the original has NaN or Inf");
  return {};
}

}  // namespace kb::judge
