#include "profiler/judge/passes/ledger_pass.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <string>

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/variant_call.h"
#include "profiler/judge/tracing/ledger_compare.h"

namespace kb::judge {
namespace {

constexpr int kLedgerSlot = 3000;  // apart from the main trials' (0 .. sizes-1) and other passes'

int64_t free_device_memory() {
  size_t free_bytes = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total), "reading the device's free memory");
  return static_cast<int64_t>(free_bytes);
}

struct LedgerReply {
  Reply reply;
  std::optional<Ledger> ledger;
};

LedgerReply ask_ledger(VariantProcess& server, const ArgSet& set, double timeout_s) {
  Request r = slot_request(Op::ledger, {kLedgerSlot}, kLedgerCalls);
  put_scalars(r, set);
  const int64_t before = free_device_memory();
  LedgerReply out{server.ask(r, timeout_s), std::nullopt};
  expect_no_harness_error(out.reply, "keep the ledger of many calls", server);
  if (out.reply.status != Status::ok) return out;
  out.ledger = ledger_from_note(std::string(out.reply.note, strnlen(out.reply.note, kNoteBytes)));
  if (out.ledger) out.ledger->free_memory_drop = before - free_device_memory();
  return out;
}

// What became of an error left pending before one call: the server's word ("kept", ...), or the
// fault that ended the call.
std::string ask_pending_error(VariantProcess& server, const ArgSet& set, double timeout_s) {
  Request r = slot_request(Op::pending_error, {kLedgerSlot});
  put_scalars(r, set);
  const Reply reply = server.ask(r, timeout_s);
  expect_no_harness_error(reply, "call with an error pending", server);
  if (reply.status != Status::ok) return "the call failed: " + fault_text(reply);
  return untrusted_note(reply, 200);
}

}  // namespace

VerificationOutcome check_ledger(const PassPlan& plan, PassContext& ctx) {
  const DecodedJob& job = ctx.job;
  const Servers& servers = ctx.servers;
  const size_t s = plan.sizes.front();
  const TrialPlan p = first_pass_trial(ctx, s);
  const std::string condition = std::to_string(kLedgerCalls) + " calls at size " + job.raw.size_labels[s] +
                                ", then one with an error the caller left pending";
  set_phase("the ledger of " + condition);
  PassSet set(ctx, s, kLedgerSlot, false);
  ArgSet &base = set.base, &cand = set.cand;
  SizeChecks& checks = set.checks;
  auto skip = [&](const std::string& why) {
    skip_for_original(ctx, "citizen's ledger", condition, why);
    return VerificationOutcome{};
  };
  LedgerReply b, c;
  try {
    prepare(job, p, checks, base, cand);
    b = ask_ledger(*servers.baseline, base, servers.timeout_s);
    if (b.reply.status != Status::ok) return skip("fails: " + fault_text(b.reply));
    if (!b.ledger) return skip("'s server sent no readable ledger");
  } catch (const VariantGone& g) {
    if (g.who != Who::baseline) throw;
    servers.restart_original();
    return skip(std::string("crashed: ") + g.what());
  }
  c = ask_ledger(*servers.candidate, cand, servers.timeout_s);
  if (c.reply.status != Status::ok)
    return {Verdict::crashed,
            "citizen's ledger: the candidate failed during " + condition + ": " + fault_text(c.reply)};
  if (!c.ledger)
    return {Verdict::rejected, "citizen's ledger: the candidate's process sent no readable ledger of " + condition};
  // The pending error, a request of its own: an original that exits on an error it did not cause
  // (a CUDA_CHECK(cudaGetLastError()) that calls exit) loses only this part.
  set_phase("a call with an error the caller left pending");
  try {
    b.ledger->pending_error = ask_pending_error(*servers.baseline, base, servers.timeout_s);
  } catch (const VariantGone& g) {
    if (g.who != Who::baseline) throw;
    servers.restart_original();
    b.ledger->pending_error = std::string("crashed: ") + g.what();
  }
  c.ledger->pending_error = b.ledger->pending_error == "kept"
                                ? ask_pending_error(*servers.candidate, cand, servers.timeout_s)
                                : "not asked";
  const LedgerComparison compared = compare_ledgers(*b.ledger, *c.ledger);
  for (const std::string& line : compared.skipped) {
    spdlog::info("skipped: citizen's ledger: {}", line);
    ctx.report.skipped_checks.push_back("citizen's ledger: " + line);
  }
  if (!compared.differences.empty()) {
    std::string reason = "citizen's ledger: ";
    for (size_t k = 0; k < compared.differences.size(); ++k) reason += (k ? "; " : "") + compared.differences[k];
    return {Verdict::rejected, reason + " (" + condition + ")"};
  }
  ctx.report.passes.push_back("citizen's ledger over " + condition +
                              ": no allocation, event, stream, graph or host thread left behind, no device-wide "
                              "setting changed" +
                              (compared.skipped.empty() ? ", the caller's pending error kept" : ""));
  return {};
}

}  // namespace kb::judge
