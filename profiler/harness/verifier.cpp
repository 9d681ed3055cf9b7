#include "profiler/harness/verifier.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "profiler/harness/arg_inputs.h"
#include "profiler/harness/cuda_check.h"
#include "profiler/harness/tolerance_warning.h"

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

// Inputs of one trial, uploaded into both sets; outputs poisoned; the same random scalars.
void prepare(const RunnerJob& job, const TrialPlan& p, const std::vector<HostBuffer>& inputs, ArgSet& base,
             ArgSet& cand) {
  for (size_t i = 0; i < job.args.size(); ++i) {
    const auto& a = job.args[i];
    if (a.is_read()) {
      base.upload(i, inputs[i]);
      cand.upload(i, inputs[i]);
    } else if (a.role == ArgRole::output) {
      base.poison(i);
      cand.poison(i);
    } else if (a.is_value() && a.values[p.size].empty()) {
      const double v = random_scalar(a.type, input_distribution(a, p.distribution), p.seed, i);
      base.set_scalar(i, v);
      cand.set_scalar(i, v);
    }
  }
}

// Asks `server` to call its launcher on slot `id`. Returns the late-work note ("" when none);
// throws VariantGone; a non-sticky fault of the candidate becomes `fault`, of the original a
// HarnessError-like infra failure through `fault` too (the caller tells them apart).
Reply call(VariantProcess& server, int id, const ArgSet& set, bool traced, double timeout_s) {
  Request r = slot_request(Op::call, {id}, traced ? 1 : 0);
  put_scalars(r, set);
  const Reply reply = server.ask(r, timeout_s);
  expect_no_harness_error(reply, "call the launcher");
  return reply;
}

std::string fault_text(const Reply& r) { return untrusted_note(r, 300); }

// What a candidate that left work behind should do instead, for the launcher it implements.
std::string late_work_advice(const RunnerJob& job) {
  if (const RunnerArg* stream = stream_arg(job))
    return "queue the work on the stream argument '" + stream->name +
           "', or make that stream wait for your streams before returning";
  return "use the default stream, or make it wait for your streams before returning";
}

bool needs_error_scale(const RunnerJob& job) {
  for (const auto& a : job.args)
    if (a.is_written() && a.error_scale == ErrorScale::abs_inputs) return true;
  return false;
}

}  // namespace

VerificationOutcome verify_candidate(const RunnerJob& job, const Servers& servers, bool strict,
                                     VerificationReport& report) {
  const bool traced = !job.raw.under_sanitizer;
  const size_t sizes = job.size_count();
  const int64_t trials = job.raw.trials * (strict ? 3 : 1);
  report = VerificationReport{};
  report.trials = trials;
  report.sizes = job.raw.size_labels;
  for (const auto& a : job.args)
    if (a.is_written()) output_entry(report, a);

  // Buffers live for the whole verification: the same addresses in every trial.
  std::vector<std::unique_ptr<ArgSet>> base_sets, cand_sets;
  // Unmapped by the servers before the judge frees the buffers (declared after them: runs first).
  struct Unbind {
    const Servers& servers;
    std::vector<int> ids;
    ~Unbind() {
      for (VariantProcess* p : {servers.baseline, servers.candidate}) try {
          if (p && !ids.empty()) p->ask(slot_request(Op::unbind, ids), servers.timeout_s);
        } catch (const std::exception&) {
          // A dead server holds no mappings.
        }
    }
  } unbind{servers, {}};
  for (size_t s = 0; s < sizes; ++s) {
    unbind.ids.push_back(static_cast<int>(s));
    base_sets.push_back(std::make_unique<ArgSet>(job, s));
    cand_sets.push_back(std::make_unique<ArgSet>(job, s));
    bind_slot(*servers.baseline, static_cast<int>(s), *base_sets[s], servers.timeout_s);
    bind_slot(*servers.candidate, static_cast<int>(s), *cand_sets[s], servers.timeout_s);
  }

  VerificationOutcome outcome;
  auto fail = [&](Verdict v, const std::string& reason) {
    outcome = {v, reason};
    report.failure = reason;
    return outcome;
  };
  for (int64_t t = 0; t < trials; ++t) {
    for (size_t s = 0; s < sizes; ++s) {
      TrialPlan p;
      p.trial = t;
      p.size = s;
      p.seed = job.raw.seed + static_cast<uint64_t>(t) * sizes + s;
      p.distribution = job.distributions[static_cast<size_t>(t + static_cast<int64_t>(s) + job.raw.distribution_start) %
                                         job.distributions.size()];
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
        if (!a.is_read()) continue;
        inputs[i].resize(base.bytes(i));
        fill_input(a, s, p.distribution, p.seed, i, inputs[i].data(), base.count(i));
      }
      // error_scale = "abs_inputs": the original's outputs on |inputs| scale the allowed error (for a
      // sum, the sum of absolute values: what any order of additions may round away).
      std::vector<HostBuffer> scales(job.args.size());
      if (needs_error_scale(job)) {
        prepare(job, p, inputs, base, cand);
        std::vector<double> scalars(job.args.size());
        for (size_t i = 0; i < job.args.size(); ++i) scalars[i] = base.scalar(i);
        for (size_t i = 0; i < job.args.size(); ++i) {
          const auto& a = job.args[i];
          if (a.role == ArgRole::input || a.role == ArgRole::inout) {
            HostBuffer magnitude = inputs[i];
            abs_in_place(a.type, magnitude.data(), base.count(i));
            base.upload(i, magnitude);
          } else if (a.is_value() && elem_is_float(a.type)) {
            base.set_scalar(i, std::fabs(base.scalar(i)));
          }
        }
        const Reply sc = call(*servers.baseline, static_cast<int>(s), base, false, servers.timeout_s);
        if (sc.status == Status::fault)
          return fail(Verdict::infra_error, "the original kernel failed on |inputs|: " + fault_text(sc) + " (" + trial_text + ")");
        for (size_t i = 0; i < job.args.size(); ++i) {
          if (job.args[i].is_written() && job.args[i].error_scale == ErrorScale::abs_inputs) scales[i] = base.download(i);
          if (job.args[i].is_value()) base.set_scalar(i, scalars[i]);
        }
      }
      prepare(job, p, inputs, base, cand);

      const Reply b = call(*servers.baseline, static_cast<int>(s), base, traced, servers.timeout_s);
      if (b.status == Status::fault)
        return fail(Verdict::infra_error, "the original kernel failed: " + fault_text(b) + " (" + trial_text + ")");
      const Reply c = call(*servers.candidate, static_cast<int>(s), cand, traced, servers.timeout_s);
      if (c.status == Status::fault)
        return fail(Verdict::crashed, "the candidate's launch failed: " + fault_text(c) + " during verification " + trial_text);
      if (c.status == Status::late_work)
        return fail(Verdict::rejected, "the candidate does work on a stream the caller does not wait for: " +
                                           fault_text(c) + " (" + late_work_advice(job) + ") (" + trial_text + ")");

      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (a.role != ArgRole::input || base.bytes(i) == 0) continue;
        const auto base_change = compare_input(a.type, inputs[i].data(), base.download(i).data(), base.count(i));
        if (base_change.changed > 0)
          return fail(Verdict::infra_error, describe_input_change(a.name, "original kernel", base_change) +
                                                ": declare it role = \"inout\" in the [[kernel]] spec (" + trial_text + ")");
        const auto change = compare_input(a.type, inputs[i].data(), cand.download(i).data(), cand.count(i));
        if (change.changed > 0)
          return fail(Verdict::wrong_result, describe_input_change(a.name, "candidate", change) + " (" + trial_text + ")");
      }
      std::vector<HostBuffer> base_out(job.args.size()), cand_out(job.args.size());
      for (size_t i = 0; i < job.args.size(); ++i) {
        const auto& a = job.args[i];
        if (!a.is_written() || base.bytes(i) == 0) continue;
        base_out[i] = base.download(i);
        cand_out[i] = cand.download(i);
        const OutputComparison cmp = compare_output(a.type, base_out[i].data(), cand_out[i].data(), base.count(i),
                                                    a.tolerance, scales[i].empty() ? nullptr : scales[i].data());
        OutputError& o = output_entry(report, a);
        o.elements += cmp.elements;
        o.mismatches += cmp.mismatches;
        if (std::isfinite(cmp.max_abs_error)) o.max_abs_error = std::max(o.max_abs_error, cmp.max_abs_error);
        if (std::isfinite(cmp.max_rel_error)) o.max_rel_error = std::max(o.max_rel_error, cmp.max_rel_error);
        o.max_reference = std::max(o.max_reference, cmp.max_reference);
        report.worst_abs_error = std::max(report.worst_abs_error, o.max_abs_error);
        report.worst_rel_error = std::max(report.worst_rel_error, o.max_rel_error);
        if (!cmp.passed())
          return fail(Verdict::wrong_result, describe_output_failure(a.name, cmp, a.tolerance) + " (" + trial_text + ")");
      }

      // Determinism, once per size: the same inputs again must give the same bits, unless the
      // original's own outputs vary from call to call (atomics), where the tolerance above rules.
      if (t == 0) {
        set_phase("determinism check at size " + job.raw.size_labels[s]);
        prepare(job, p, inputs, base, cand);
        const Reply b2 = call(*servers.baseline, static_cast<int>(s), base, false, servers.timeout_s);
        const Reply c2 = call(*servers.candidate, static_cast<int>(s), cand, false, servers.timeout_s);
        if (b2.status == Status::fault)
          return fail(Verdict::infra_error, "the original kernel failed: " + fault_text(b2) + " (" + trial_text + ")");
        if (c2.status == Status::fault)
          return fail(Verdict::crashed, "the candidate's launch failed: " + fault_text(c2) + " during verification " + trial_text);
        for (size_t i = 0; i < job.args.size(); ++i) {
          const auto& a = job.args[i];
          if (!a.is_written() || base.bytes(i) == 0) continue;
          const HostBuffer base_again = base.download(i), cand_again = cand.download(i);
          const bool original_repeats = base_again == base_out[i];
          if (!original_repeats) report.original_nondeterministic = true;
          if (original_repeats && cand_again != cand_out[i]) {
            const auto change = compare_input(a.type, cand_out[i].data(), cand_again.data(), cand.count(i));
            return fail(Verdict::wrong_result,
                        "the candidate is not deterministic: called twice on the same inputs, it wrote different "
                        "values to output " + a.name + " (" + std::to_string(change.changed) +
                            " elements, first at index " + std::to_string(change.first_index) + ": " +
                            format_number(change.before) + " then " + format_number(change.after) +
                            "), while the original's outputs repeat bit for bit (" + trial_text + ")");
          }
        }
      }
    }
  }
  for (const auto& o : report.outputs) {
    const std::string warning = tolerance_warning(o);
    if (warning.empty()) continue;
    spdlog::warn("{}", warning);
    report.warnings.push_back(warning);
  }
  report.passed = true;
  report.strict_pass = strict;
  report.deterministic_checked = true;
  spdlog::info("verification passed: {} trials x {} sizes, worst abs error {}, worst rel error {}", trials, sizes,
               format_number(report.worst_abs_error), format_number(report.worst_rel_error));
  return outcome;
}

VerificationOutcome run_for_sanitizer(const RunnerJob& job, const Servers& servers) {
  for (int64_t t = 0; t < job.raw.trials; ++t) {
    for (size_t s = 0; s < job.size_count(); ++s) {
      set_phase("sanitizer trial " + std::to_string(t + 1) + " at size " + job.raw.size_labels[s]);
      Request r;
      r.op = Op::local_call;
      r.size_index = static_cast<int32_t>(s);
      r.seed = job.raw.seed + static_cast<uint64_t>(t) * job.size_count() + s;
      r.distribution = static_cast<uint32_t>(job.distributions.front());
      const Reply c = servers.candidate->ask(r, servers.timeout_s);
      expect_no_harness_error(c, "run the candidate");
      if (c.status == Status::fault) return {Verdict::crashed, "the candidate's launch failed: " + fault_text(c)};
    }
  }
  return {};
}

}  // namespace kb::harness
