#include "profiler/judge/passes/concurrent_callers_pass.h"

#include <spdlog/spdlog.h>

#include <array>

#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

// Apart from the main trials' (0 .. sizes-1) and other passes'. The last two: the candidate's
// buffers lent to the original, to ask whether it fails the condition too.
constexpr std::array<int, 2> kSlots = {2900, 2901};
constexpr std::array<int, 2> kOriginalOnCandidateSlots = {2902, 2903};

enum class Mode { two_streams = 0, two_threads = 1 };

std::string describe_mode(Mode m) {
  return m == Mode::two_streams ? "two calls at once from one thread on two non-blocking streams"
                                : "two calls at once from two host threads";
}

struct Pair {
  std::array<ArgSet*, 2> base, cand;
  std::array<SizeChecks*, 2> checks;
  std::array<TrialPlan, 2> plans;
};

void set_scalars(VariantProcess& server, int slot, const ArgSet& set, double timeout_s) {
  Request r = slot_request(Op::set_scalars, {slot});
  put_scalars(r, set);
  expect_no_harness_error(server.ask(r, timeout_s), "set a slot's scalars", server);
}

// Both calls at once on `server`'s `slots`. The reply's fault, or ok.
Reply at_once(VariantProcess& server, const std::array<int, 2>& slots, const std::array<ArgSet*, 2>& sets, Mode m,
              double timeout_s) {
  for (size_t k = 0; k < 2; ++k) set_scalars(server, slots[k], *sets[k], timeout_s);
  const Reply r = server.ask(slot_request(Op::concurrent, {slots[0], slots[1]}, static_cast<int>(m)), timeout_s);
  expect_no_harness_error(r, "make two calls at once", server);
  return r;
}

}  // namespace

VerificationOutcome check_concurrent_callers(const PassPlan& plan, PassContext& ctx) {
  const DecodedJob& job = ctx.job;
  const Servers& servers = ctx.servers;
  const bool scaled = needs_error_scale(job);
  const std::array<size_t, 2> sizes = {plan.sizes.at(0), plan.sizes.at(1)};
  ArgSet base0(job, sizes[0]), cand0(job, sizes[0]), base1(job, sizes[1]), cand1(job, sizes[1]);
  SizeChecks checks0 = size_checks(job, base0, scaled), checks1 = size_checks(job, base1, scaled);
  Pair pair{{&base0, &base1}, {&cand0, &cand1}, {&checks0, &checks1}, {}};
  PassSlots slots(servers, {kSlots[0], kSlots[1], kOriginalOnCandidateSlots[0], kOriginalOnCandidateSlots[1]});
  const std::array<StreamChoice, 2> streams = {StreamChoice::launcher_stream, StreamChoice::second_caller};
  for (size_t k = 0; k < 2; ++k) {
    bind_slot(*servers.baseline, kSlots[k], *pair.base[k], servers.timeout_s, streams[k]);
    bind_slot(*servers.candidate, kSlots[k], *pair.cand[k], servers.timeout_s, streams[k]);
  }
  bool original_on_candidate_bound = false;
  const std::string sizes_text = "sizes " + job.raw.size_labels[sizes[0]] + " and " + job.raw.size_labels[sizes[1]];

  auto skip = [&](const std::string& condition, const std::string& why) {
    skip_for_original(ctx, "concurrent callers", condition, why);
  };
  // Inputs of both calls (the same scalars in both: one request carries a slot's scalars).
  auto prepare_both = [&]() -> VerificationOutcome {
    for (size_t k = 0; k < 2; ++k) {
      const int slot = kSlots[k];
      if (scaled) {
        VerificationOutcome sc = compute_error_scale(job, servers, pair.plans[k], *pair.checks[k], *pair.base[k],
                                                     *pair.cand[k], "concurrent callers", slot);
        if (sc.failed()) return sc;
      }
      prepare(job, pair.plans[k], *pair.checks[k], *pair.base[k], *pair.cand[k]);
    }
    return {};
  };
  std::vector<std::string> passed;
  for (const Mode mode : {Mode::two_streams, Mode::two_threads}) {
    for (size_t k = 0; k < 2; ++k) {
      pair.plans[k].size = sizes[k];
      pair.plans[k].seed = next_pass_seed(ctx);
      pair.plans[k].distribution = job.distributions.front();
    }
    const std::string condition = describe_mode(mode) + " (" + sizes_text + ", seeds " +
                                  std::to_string(pair.plans[0].seed) + " and " + std::to_string(pair.plans[1].seed) +
                                  ")";
    set_phase("verification with " + condition);
    try {
      if (const VerificationOutcome o = prepare_both(); o.failed()) {
        skip(condition, "fails on |inputs|: " + o.reason);
        continue;
      }
      const Reply b = at_once(*servers.baseline, kSlots, pair.base, mode, servers.timeout_s);
      if (b.status != Status::ok) {
        skip(condition, "fails: " + fault_text(b));
        continue;
      }
      const Reply c = at_once(*servers.candidate, kSlots, pair.cand, mode, servers.timeout_s);
      if (c.status != Status::ok)
        return {Verdict::crashed, "concurrent callers: the candidate failed under " + condition + ": " + fault_text(c)};
      VerificationOutcome failed;
      for (size_t k = 0; k < 2 && !failed.failed(); ++k) {
        const std::string which = std::string(k == 0 ? "the first" : "the second") + " call (size " +
                                  job.raw.size_labels[sizes[k]] + ")";
        failed = check_call(job, *pair.base[k], *pair.cand[k], *pair.checks[k], ctx.scratch, ctx.report,
                            condition + ", " + which);
      }
      if (!failed.failed()) {
        passed.push_back(describe_mode(mode));
        continue;
      }
      if (failed.verdict == Verdict::infra_error) {
        skip(condition, "changed an input: " + failed.reason);
        continue;
      }
      // Whose failure: the original, one call at a time on its own buffers, then at once on the
      // candidate's buffers; if those disagree, the original fails the condition too.
      if (prepare_both().failed()) return {failed.verdict, lead_with("concurrent callers", condition, failed.reason)};
      for (size_t k = 0; k < 2; ++k) {
        const Reply one = call(*servers.baseline, kSlots[k], *pair.base[k], false, servers.timeout_s);
        if (one.status != Status::ok)
          return {failed.verdict, lead_with("concurrent callers", condition, failed.reason)};
      }
      if (!original_on_candidate_bound) {
        for (size_t k = 0; k < 2; ++k)
          bind_slot(*servers.baseline, kOriginalOnCandidateSlots[k], *pair.cand[k], servers.timeout_s, streams[k]);
        original_on_candidate_bound = true;
      }
      const Reply again = at_once(*servers.baseline, kOriginalOnCandidateSlots, pair.cand, mode, servers.timeout_s);
      bool original_fails = again.status != Status::ok;
      for (size_t k = 0; k < 2 && !original_fails; ++k) {
        VerificationReport scratch_report;
        original_fails = check_call(job, *pair.base[k], *pair.cand[k], *pair.checks[k], ctx.scratch, scratch_report,
                                    condition)
                             .failed();
      }
      if (original_fails) {
        skip(condition, "itself gives results there that differ from its calls one at a time");
        continue;
      }
      return {failed.verdict, lead_with("concurrent callers", condition, failed.reason) +
                                  " (the original, called the same way, gives its right results)"};
    } catch (const VariantGone& g) {
      if (g.who != Who::baseline) throw;
      servers.restart_original();
      skip(condition, std::string("crashed: ") + g.what());
      return {};
    }
  }
  if (!passed.empty()) {
    std::string line = "concurrent callers at " + sizes_text + ":";
    for (size_t k = 0; k < passed.size(); ++k) line += (k ? "; " : " ") + passed[k];
    ctx.report.passes.push_back(line + ", each with its own right result");
  }
  return {};
}

}  // namespace kb::judge
