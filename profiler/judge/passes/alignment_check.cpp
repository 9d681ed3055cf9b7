#include "profiler/judge/passes/alignment_check.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "profiler/judge/buffers/guard_check.h"
#include "profiler/judge/plans/alignment_cases.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

// Apart from the main trials' slots (0..sizes-1) and timing's (1000 and up).
constexpr int kAlignmentSlot = 900;
// Its inputs come from a seed of their own, apart from every trial's.
constexpr uint64_t kAlignmentSeedSalt = 0xA11C9ED5EEDull;

// One case's sets, lent to both servers as kAlignmentSlot and unmapped before they are freed.
struct LentCase {
  const Servers& servers;
  std::unique_ptr<ArgSet> base, cand;
  ~LentCase() {
    for (VariantProcess* p : {servers.baseline, servers.candidate}) try {
        if (p) p->ask(slot_request(Op::unbind, {kAlignmentSlot}), servers.timeout_s);
      } catch (const std::exception&) {
        // A dead server holds no mappings.
      }
  }
};

}  // namespace

VerificationOutcome check_alignment(const DecodedJob& job, const Servers& servers, DeviceScratch& scratch,
                                    VerificationReport& report) {
  const size_t s = smallest_size_index(job);
  const bool traced = !job.raw.under_sanitizer;
  const bool scaled = needs_error_scale(job);
  TrialPlan p;
  p.size = s;
  p.seed = job.raw.seed ^ kAlignmentSeedSalt;
  p.distribution = job.distributions.front();
  std::vector<std::string> passed;
  for (const AlignmentCase& c : alignment_cases(job)) {
    const std::string condition = describe_alignment_case(job, c);
    const std::string text = "the alignment check with " + condition + " at size " + job.raw.size_labels[s] +
                             " (distribution " + to_string(p.distribution) + ", seed " + std::to_string(p.seed) + ")";
    // The candidate is held to the alignment only once the original has shown it accepts it.
    auto candidate_failed = [&](VerificationOutcome o) {
      if (o.verdict != Verdict::infra_error) o.reason += "; the original accepts this alignment";
      return o;
    };
    auto skip = [&](const std::string& why) {
      const std::string line = "alignment offset " + std::to_string(c.shift) + " bytes (" + condition + "): " + why;
      spdlog::info("skipped: {}", line);
      report.skipped_checks.push_back(line);
    };
    set_phase(text + ", which the original accepts");
    LentCase lent{servers, std::make_unique<ArgSet>(job, s, c.shifts), std::make_unique<ArgSet>(job, s, c.shifts)};
    SizeChecks checks = size_checks(job, *lent.base, scaled);
    BothCalls calls;
    try {
      bind_slot(*servers.baseline, kAlignmentSlot, *lent.base, servers.timeout_s);
      bind_slot(*servers.candidate, kAlignmentSlot, *lent.cand, servers.timeout_s);
      if (scaled) {
        const VerificationOutcome sc = compute_error_scale(job, servers, p, checks, *lent.base, *lent.cand, text,
                                                           kAlignmentSlot);
        if (sc.failed()) {  // only the original is called there
          skip(sc.reason);
          continue;
        }
      }
      prepare(job, p, checks, *lent.base, *lent.cand);
      calls = call_both(job, servers, kAlignmentSlot, *lent.base, kAlignmentSlot, *lent.cand, traced, text);
    } catch (const VariantGone& g) {
      // The candidate's crash ends the job; the judge's phase names the case it crashed in.
      if (g.who == Who::candidate) throw;
      // A misaligned access is a sticky fault: the original's server is gone. A fresh one takes
      // the next case (and timing); it holds none of the main trials' slots, which are done.
      const std::string& fault = servers.baseline->last_fault();
      skip("the original faults (" + (fault.empty() ? std::string(g.what()) : fault) + ")");
      servers.restart_original();
      continue;
    }
    if (calls.original_faulted) {
      skip(calls.outcome.reason);
      continue;
    }
    if (calls.outcome.failed()) return candidate_failed(calls.outcome);
    // The original writing outside its shifted buffers does not accept the shift: skipped, where
    // check_call would call it the user's bug.
    if (const auto found = lent.base->guard_violations(); !found.empty()) {
      skip("the original " + describe_guard_violation(found.front()));
      continue;
    }
    const VerificationOutcome checked = check_call(job, *lent.base, *lent.cand, checks, scratch, report, text);
    if (checked.failed()) return candidate_failed(checked);
    passed.push_back(condition);
  }
  if (!passed.empty()) {
    std::string cases;
    for (const auto& c : passed) cases += (cases.empty() ? "" : "; ") + c;
    report.passes.push_back("alignment at size " + job.raw.size_labels[s] + ": " + cases);
  }
  return {};
}

}  // namespace kb::judge
