#include "profiler/judge/passes/graph_capture_pass.h"

#include <spdlog/spdlog.h>

#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

constexpr int kGraphSlot = 2800;  // apart from the main trials' (0 .. sizes-1) and other passes'
constexpr int kReplays = 2;

std::string capture_condition(const DecodedJob& job, size_t size) {
  const DecodedArg* stream = stream_arg(job);
  return "one call captured into a CUDA graph on the stream argument '" + (stream ? stream->name : std::string()) +
         "' in global capture mode (size " + job.raw.size_labels[size] + ")";
}

}  // namespace

VerificationOutcome check_graph_capture(const PassPlan& plan, PassContext& ctx) {
  const DecodedJob& job = ctx.job;
  const Servers& servers = ctx.servers;
  const size_t s = plan.sizes.front();
  const TrialPlan p = first_pass_trial(ctx, s);
  const std::string condition = capture_condition(job, s);
  set_phase("verification with " + condition);
  const bool scaled = needs_error_scale(job);
  PassSet set(ctx, s, kGraphSlot, scaled);
  ArgSet &base = set.base, &cand = set.cand;
  SizeChecks& checks = set.checks;

  auto skip = [&](const std::string& why) {
    skip_for_original(ctx, "CUDA graph capture", condition, why);
    return VerificationOutcome{};
  };
  auto lead = [&](const VerificationOutcome& o) {
    return VerificationOutcome{o.verdict, lead_with("CUDA graph capture", condition, o.reason)};
  };
  try {
    prepare(job, p, checks, base, cand);
    std::vector<double> scalars(job.args.size());
    for (size_t i = 0; i < job.args.size(); ++i) scalars[i] = base.scalar(i);
    Request capture = slot_request(Op::graph_capture, {kGraphSlot});
    put_scalars(capture, base);
    const Reply b = servers.baseline->ask(capture, servers.timeout_s);
    expect_no_harness_error(b, "capture the original");
    if (b.status != Status::ok) return skip("fails under capture: " + fault_text(b));
    if (b.value != 1) return skip("cannot be captured: " + untrusted_note(b));
    const Reply c = servers.candidate->ask(capture, servers.timeout_s);
    expect_no_harness_error(c, "capture the candidate", *servers.candidate);
    if (c.status != Status::ok)
      return {Verdict::crashed, "CUDA graph capture: the candidate's call failed under capture: " + fault_text(c) +
                                    " (" + condition + ")"};
    if (c.value != 1)
      return {Verdict::rejected,
              "CUDA graph capture: the candidate cannot be captured where the original can (a caller capturing its "
              "work in a CUDA graph would fail): " +
                  untrusted_note(c) + " (" + condition + ")"};
    for (int replay = 1; replay <= kReplays; ++replay) {
      TrialPlan r = p;
      r.trial = replay;
      r.seed = next_pass_seed(ctx);
      const std::string context = "replay " + std::to_string(replay) + " of " + std::to_string(kReplays) +
                                  " on new input contents, seed " + std::to_string(r.seed);
      if (scaled) {
        const VerificationOutcome sc = compute_error_scale(job, servers, r, checks, base, cand, condition, kGraphSlot,
                                                           &scalars);
        if (sc.failed()) return skip("fails on |inputs|: " + sc.reason);
      }
      prepare_keeping_scalars(job, r, checks, base, cand, scalars);
      const Reply rb = servers.baseline->ask(slot_request(Op::graph_replay, {kGraphSlot}), servers.timeout_s);
      expect_no_harness_error(rb, "replay the original's graph");
      if (rb.status != Status::ok) return skip("fails on replay: " + fault_text(rb));
      const Reply rc = servers.candidate->ask(slot_request(Op::graph_replay, {kGraphSlot}), servers.timeout_s);
      expect_no_harness_error(rc, "replay the candidate's graph", *servers.candidate);
      if (rc.status != Status::ok)
        return {Verdict::crashed, "CUDA graph capture: the candidate's graph failed on " + context + ": " +
                                      fault_text(rc) + " (" + condition + ")"};
      const VerificationOutcome checked = check_call(job, base, cand, checks, ctx.scratch, ctx.report,
                                                     condition + ", " + context);
      if (checked.verdict == Verdict::infra_error) return skip("changed an input on replay: " + checked.reason);
      if (checked.failed()) return lead(checked);
    }
  } catch (const VariantGone& g) {
    if (g.who != Who::baseline) throw;
    servers.restart_original();
    return skip(std::string("crashed: ") + g.what());
  }
  ctx.report.passes.push_back("CUDA graph capture at size " + job.raw.size_labels[s] +
                              ": one call captured on the caller's stream in global capture mode, replayed " +
                              std::to_string(kReplays) + " times on new input contents");
  return {};
}

}  // namespace kb::judge
