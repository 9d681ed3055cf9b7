#include "profiler/judge/passes/generalization_check.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include "profiler/judge/plans/generalization_plan.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

// One set's buffers, lent to both servers as slot `id` and taken back when it ends (before the
// buffers are freed: the members below are destroyed after this destructor runs).
struct LentSet {
  LentSet(const DecodedJob& job, const Servers& s, size_t size, bool scaled)
      : servers(s),
        id(static_cast<int>(size)),
        base(job, size),
        cand(job, size),
        checks(size_checks(job, base, scaled)) {}
  ~LentSet() {
    for (VariantProcess* p : {servers.baseline, servers.candidate}) try {
        if (p) p->ask(slot_request(Op::unbind, {id}), servers.timeout_s);
      } catch (const std::exception&) {
        // A dead server holds no mappings.
      }
  }
  LentSet(const LentSet&) = delete;
  LentSet& operator=(const LentSet&) = delete;
  const Servers& servers;
  int id;
  ArgSet base, cand;
  SizeChecks checks;
};

// What one generalization set came to: a verdict, a skip (the original fails there), or a pass.
struct SetOutcome {
  VerificationOutcome outcome;
  std::string skipped;  // why, when the set was skipped
};

SetOutcome check_set(const DecodedJob& job, const Servers& servers, size_t s, bool scaled, DeviceScratch& scratch,
                     VerificationReport& report) {
  const GeneralizationCall c = generalization_call(job, s);
  const TrialPlan p{0, s, c.seed, c.distribution};
  const std::string text = describe_generalization_call(job, s, c);
  set_phase("verification at " + text);
  spdlog::debug("verifying at {}", text);
  const bool traced = !job.raw.under_sanitizer;

  LentSet set(job, servers, s, scaled);
  bind_slot(*servers.baseline, set.id, set.base, servers.timeout_s);
  bind_slot(*servers.candidate, set.id, set.cand, servers.timeout_s);
  if (scaled) {
    const VerificationOutcome sc = compute_error_scale(job, servers, p, set.checks, set.base, set.cand, text);
    // compute_error_scale's only failure is the original's fault on |inputs|.
    if (sc.failed()) return {{}, "the original fails on |inputs| there (" + sc.reason + ")"};
  }
  prepare(job, p, set.checks, set.base, set.cand);
  const BothCalls calls = call_both(job, servers, set.id, set.base, set.id, set.cand, traced, text);
  if (calls.original_faulted) return {{}, "the original fails there (" + calls.outcome.reason + ")"};
  if (calls.outcome.failed()) return {calls.outcome, ""};
  const VerificationOutcome checked = check_call(job, set.base, set.cand, set.checks, scratch, report, text);
  // check_call's infra_error is the original's own misbehaviour (it changed an input there).
  if (checked.verdict == Verdict::infra_error) return {{}, "the original misbehaves there (" + checked.reason + ")"};
  return {checked, ""};
}

}  // namespace

VerificationOutcome check_generalization_sizes(const DecodedJob& job, const Servers& servers,
                                               VerificationReport& report) {
  if (job.all_size_count() == job.size_count()) return {};
  const bool scaled = needs_error_scale(job);
  DeviceScratch scratch;
  for (size_t s = job.size_count(); s < job.all_size_count(); ++s) {
    const std::string what = describe_generalization_size(job, s);
    size_t free_bytes = 0, total_bytes = 0;
    cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free GPU memory");
    const size_t needed = generalization_bytes(job, s, scaled);
    if (!fits_free_memory(needed, free_bytes)) {
      report.skipped_checks.push_back(what + ": needs " + std::to_string(needed >> 20) + " MiB of GPU memory, " +
                                      std::to_string(free_bytes >> 20) + " MiB are free");
      spdlog::info("skipped {}", report.skipped_checks.back());
      if (servers.memory_skips)
        servers.memory_skips->push_back({what, static_cast<int64_t>(needed), static_cast<int64_t>(free_bytes)});
      continue;
    }
    SetOutcome r;
    try {
      r = check_set(job, servers, s, scaled, scratch, report);
    } catch (const VariantGone& g) {
      // The original's server died on this size (a sticky fault: the user's code does not
      // support it): a fresh one serves what follows. The candidate's death is its own verdict.
      if (g.who != Who::baseline || !servers.restart_original) throw;
      servers.restart_original();
      r.skipped = std::string("the original's process ended there (") + g.what() + ")";
    }
    if (r.outcome.failed()) {
      report.failure = r.outcome.reason;
      return r.outcome;
    }
    if (!r.skipped.empty()) {
      report.skipped_checks.push_back(what + ": " + r.skipped);
      spdlog::info("skipped {}", report.skipped_checks.back());
    } else {
      report.generalization_sizes.push_back(job.raw.size_labels[s]);
    }
  }
  spdlog::info("generalization sizes: {} verified, {} skipped", report.generalization_sizes.size(),
               report.skipped_checks.size());
  return {};
}

}  // namespace kb::judge
