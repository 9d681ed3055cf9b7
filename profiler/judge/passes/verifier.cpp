#include "profiler/judge/passes/verifier.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "profiler/judge/outputs/output_comparator.h"
#include "profiler/judge/outputs/reference_check.h"
#include "profiler/judge/outputs/tolerance_warning.h"
#include "profiler/judge/passes/pass_runs.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/timing/phase_times.h"
#include "profiler/judge/wire/served_job.h"

namespace kb::judge {

VerificationOutcome verify_candidate(const DecodedJob& job, const Servers& servers, bool strict,
                                     VerificationReport& report) {
  const bool traced = !job.raw.under_sanitizer;
  const size_t sizes = job.size_count();
  const int64_t trials = job.raw.trials * (strict ? 3 : 1);
  report = VerificationReport{};
  // Where verification's time goes, the main trials and each pass (bench/search_throughput sums it).
  PhaseTimes pass_times(report.pass_s);
  // The main trials by part (bench/search_throughput lists each): the buffers lent to both servers,
  // each trial's inputs, both calls, the checks of their outputs, and once per size the reference
  // and determinism checks.
  pass_times.begin("main trials: buffers");
  report.trials = trials;
  report.sizes.assign(job.raw.size_labels.begin(), job.raw.size_labels.begin() + static_cast<std::ptrdiff_t>(sizes));
  for (const auto& a : job.args)
    if (a.is_written()) output_entry(report, a);

  // Buffers live for the whole verification: the same addresses in every trial.
  MainTrialSets sets;
  auto& base_sets = sets.base;
  auto& cand_sets = sets.cand;
  auto& checks = sets.checks;
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
  const bool scaled = needs_error_scale(job);
  for (size_t s = 0; s < sizes; ++s) {
    unbind.ids.push_back(static_cast<int>(s));
    base_sets.push_back(std::make_unique<ArgSet>(job, s));
    cand_sets.push_back(std::make_unique<ArgSet>(job, s));
    checks.push_back(size_checks(job, *base_sets[s], scaled));
    bind_slot(*servers.baseline, static_cast<int>(s), *base_sets[s], servers.timeout_s);
    bind_slot(*servers.candidate, static_cast<int>(s), *cand_sets[s], servers.timeout_s);
  }
  DeviceScratch scratch;

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
      SizeChecks& check = checks[s];
      // error_scale = "abs_inputs": the original's outputs on |inputs| scale the allowed error (for a
      // sum, the sum of absolute values: what any order of additions may round away).
      pass_times.begin("main trials: inputs");
      if (scaled) {
        const VerificationOutcome sc = compute_error_scale(job, servers, p, check, base, cand, trial_text);
        if (sc.failed()) return fail(sc.verdict, sc.reason);
      }
      prepare(job, p, check, base, cand);
      pass_times.begin("main trials: calls");
      const BothCalls calls = call_both(job, servers, static_cast<int>(s), base, static_cast<int>(s), cand, traced,
                                        trial_text);
      if (calls.outcome.failed()) return fail(calls.outcome.verdict, calls.outcome.reason);
      pass_times.begin("main trials: output checks");
      const VerificationOutcome checked = check_call(job, base, cand, check, scratch, report, trial_text);
      if (checked.failed()) return fail(checked.verdict, checked.reason);

      // A reference that proves nothing (an output the original never writes, or writes with no
      // finite value) is the configuration's error, never a pass; once per size.
      if (t == 0) {
        pass_times.begin("main trials: reference and determinism");
        for (size_t i = 0; i < job.args.size(); ++i) {
          const auto& a = job.args[i];
          if (!role_is_compared(a.role)) continue;
          const ReferenceFinding r = reference_finding(a.type, a.name, job.raw.size_labels[s],
                                                       scratch.count_reference(a.type, a.role, base.device(i),
                                                                               base.count(i)));
          if (!r.error.empty()) return fail(Verdict::infra_error, r.error);
          if (!r.warning.empty() &&
              std::find(report.warnings.begin(), report.warnings.end(), r.warning) == report.warnings.end())
            report.warnings.push_back(r.warning);
        }
      }
      // Determinism, once per size: the same inputs again must give the same bits, unless the
      // original's own outputs vary from call to call (atomics), where the tolerance above rules.
      if (t == 0) {
        set_phase("determinism check at size " + job.raw.size_labels[s]);
        std::vector<JudgeBuffer> first_base, first_cand;
        for (size_t i = 0; i < job.args.size(); ++i) {
          const bool written = job.args[i].is_written();
          first_base.emplace_back(written ? base.bytes(i) : 0);
          first_cand.emplace_back(written ? cand.bytes(i) : 0);
          if (!first_base[i].get()) continue;
          copy_device(first_base[i].get(), base.device(i), base.bytes(i));
          copy_device(first_cand[i].get(), cand.device(i), cand.bytes(i));
        }
        prepare(job, p, check, base, cand);
        const Reply b2 = call(*servers.baseline, static_cast<int>(s), base, false, servers.timeout_s);
        const Reply c2 = call(*servers.candidate, static_cast<int>(s), cand, false, servers.timeout_s);
        if (b2.status == Status::fault)
          return fail(Verdict::infra_error, "the original kernel failed: " + fault_text(b2) + " (" + trial_text + ")");
        if (c2.status == Status::fault)
          return fail(Verdict::crashed,
                      "the candidate's launch failed: " + fault_text(c2) + " during verification " + trial_text);
        for (size_t i = 0; i < job.args.size(); ++i) {
          const auto& a = job.args[i];
          if (!first_base[i].get()) continue;
          const bool original_repeats = scratch.count_differences(first_base[i].get(), base.device(i), base.bytes(i)) ==
                                        0;
          if (!original_repeats) report.original_nondeterministic = true;
          if (original_repeats && scratch.count_differences(first_cand[i].get(), cand.device(i), cand.bytes(i)) > 0) {
            const auto change = compare_input(a.type, first_cand[i].download().data(), cand.download(i).data(),
                                              cand.count(i));
            return fail(Verdict::wrong_result,
                        "the candidate is not deterministic: called twice on the same inputs, it wrote different "
                        "values to output " +
                            a.name + " (" + std::to_string(change.changed) + " elements, first at index " +
                            std::to_string(change.first_index) + ": " + format_number(change.before) + " then " +
                            format_number(change.after) + "), while the original's outputs repeat bit for bit (" +
                            trial_text + ")");
          }
        }
      }
    }
  }
  // The passes after the main trials, in the registry's order (verification_pass.h).
  PassContext ctx{job, servers, sets, scratch, report};
  for (const PassInfo& pass : verification_passes()) {
    if (!pass.in_screening && is_screening(job)) continue;
    const PassPlan plan = pass.plan(job);
    if (!plan.runs) {
      spdlog::debug("{}: not applicable ({})", pass.name, plan.not_applicable);
      continue;
    }
    set_phase(std::string(pass.name));
    pass_times.begin(std::string(pass.name));
    if (const VerificationOutcome o = run_pass(pass.key, plan, ctx); o.failed()) return fail(o.verdict, o.reason);
  }
  for (const auto& o : report.outputs) {
    const std::string warning = tolerance_warning(o);
    if (warning.empty()) continue;
    spdlog::warn("{}", warning);
    report.warnings.push_back(warning);
  }
  // Passed first: every call above had its guard zones checked (check_call).
  report.passes.insert(report.passes.begin(), "no write outside any buffer: each was lent between guard zones of "
                                              "unpredictable bytes, checked after every call");
  report.passed = true;
  report.strict_pass = strict;
  report.deterministic_checked = true;
  spdlog::info("verification passed: {} trials x {} sizes, worst abs error {}, worst rel error {}", trials, sizes,
               format_number(report.worst_abs_error), format_number(report.worst_rel_error));
  return outcome;
}

VerificationOutcome run_for_sanitizer(const DecodedJob& job, const Servers& servers) {
  for (int64_t t = 0; t < job.raw.trials; ++t) {
    for (size_t s = 0; s < job.size_count(); ++s) {
      set_phase("sanitizer trial " + std::to_string(t + 1) + " at size " + job.raw.size_labels[s]);
      Request r;
      r.op = Op::local_call;
      r.size_index = static_cast<int32_t>(s);
      r.seed = fresh_server_seed();  // the server fills its own buffers: never a verification's seed
      r.distribution = static_cast<uint32_t>(job.distributions.front());
      const Reply c = servers.candidate->ask(r, servers.timeout_s);
      expect_no_harness_error(c, "run the candidate", *servers.candidate);
      if (c.status == Status::fault) return {Verdict::crashed, "the candidate's launch failed: " + fault_text(c)};
    }
  }
  return {};
}

}  // namespace kb::judge
