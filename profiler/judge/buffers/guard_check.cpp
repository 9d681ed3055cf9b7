#include "profiler/judge/buffers/guard_check.h"

namespace kb::judge {

VerificationOutcome guard_outcome(bool original, const std::vector<GuardViolation>& found, const std::string& when) {
  std::string what;
  for (const auto& v : found) what += (what.empty() ? "" : "; it also ") + describe_guard_violation(v);
  if (original)
    return {Verdict::infra_error, "the original kernel " + what +
                                      ": a bounds bug in the original (your code), not the candidate's; fix the "
                                      "original's bounds checks (" +
                                      when + ")"};
  return {Verdict::rejected, "the candidate " + what + " (" + when + ")"};
}

VerificationOutcome check_guards(const ArgSet& base, const ArgSet& cand, const std::string& when) {
  if (const auto found = base.guard_violations(); !found.empty()) return guard_outcome(true, found, when);
  if (const auto found = cand.guard_violations(); !found.empty()) return guard_outcome(false, found, when);
  return {};
}

}  // namespace kb::judge
