#include "profiler/judge/passes/stream_pass.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "profiler/judge/plans/stream_pass_plan.h"

namespace kb::judge {
namespace {

// Slot ids of this pass's argument sets: apart from the main verification's (0 .. sizes-1).
constexpr int kPerThreadSlot = 2700;

// The pass's slots are unmapped before its buffers are freed (declared after them: runs first).
struct UnbindPassSlot {
  const Servers& servers;
  ~UnbindPassSlot() {
    for (VariantProcess* p : {servers.baseline, servers.candidate}) try {
        if (p) p->ask(slot_request(Op::unbind, {kPerThreadSlot}), servers.timeout_s);
      } catch (const std::exception&) {
        // A dead server holds no mappings.
      }
  }
};

}  // namespace

VerificationOutcome verify_per_thread_stream(const DecodedJob& job, const Servers& servers,
                                             VerificationReport& report) {
  const std::optional<size_t> size = per_thread_pass_size(job);
  if (!size) return {};
  TrialPlan p;
  p.trial = 0;
  p.size = *size;
  // Past the main trials' seeds (job seed + trial * sizes + size).
  p.seed = job.raw.seed + static_cast<uint64_t>(report.seeds.size()) + 1;
  p.distribution = job.distributions.front();
  const std::string condition = describe_per_thread_condition(job, p.size, to_string(p.distribution), p.seed);
  set_phase("verification with " + condition);
  spdlog::debug("verifying with {}", condition);
  report.seeds.push_back(p.seed);

  ArgSet base(job, p.size), cand(job, p.size);
  SizeChecks checks = size_checks(job, base, needs_error_scale(job));
  DeviceScratch scratch;
  UnbindPassSlot unbind{servers};
  bind_slot(*servers.baseline, kPerThreadSlot, base, servers.timeout_s, StreamChoice::per_thread_default);
  bind_slot(*servers.candidate, kPerThreadSlot, cand, servers.timeout_s, StreamChoice::per_thread_default);

  auto skip = [&](const std::string& original_failure) {
    const std::string line = per_thread_skip_line(condition, original_failure);
    spdlog::info("skipped: {}", line);
    report.skipped_checks.push_back(line);
    return VerificationOutcome{};
  };
  auto fail = [&](const VerificationOutcome& o) {
    return VerificationOutcome{o.verdict, per_thread_failure(o.reason)};
  };
  try {
    if (needs_error_scale(job)) {
      const VerificationOutcome sc = compute_error_scale(job, servers, p, checks, base, cand, condition,
                                                         kPerThreadSlot);
      if (sc.failed()) return skip(sc.reason);
    }
    prepare(job, p, checks, base, cand);
    const BothCalls calls = call_both(job, servers, kPerThreadSlot, base, kPerThreadSlot, cand,
                                      !job.raw.under_sanitizer, condition);
    if (calls.original_faulted) return skip(calls.outcome.reason);
    if (calls.outcome.failed()) return fail(calls.outcome);
  } catch (const VariantGone& g) {
    if (g.who != Who::baseline) throw;
    // The original's server is gone (a sticky fault): a fresh one serves the passes after this.
    servers.restart_original();
    return skip(g.what());
  }
  const VerificationOutcome checked = check_call(job, base, cand, checks, scratch, report, condition);
  if (checked.verdict == Verdict::infra_error) return skip(checked.reason);  // the original changed its input
  if (checked.failed()) return fail(checked);
  report.passes.push_back("the per-thread default stream as the stream argument at size " +
                          job.raw.size_labels[p.size]);
  return {};
}

}  // namespace kb::judge
