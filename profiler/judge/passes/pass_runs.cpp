#include "profiler/judge/passes/pass_runs.h"

#include <spdlog/spdlog.h>

#include "profiler/judge/passes/alignment_check.h"
#include "profiler/judge/passes/concurrent_callers_pass.h"
#include "profiler/judge/passes/generalization_check.h"
#include "profiler/judge/passes/graph_capture_pass.h"
#include "profiler/judge/passes/ledger_pass.h"
#include "profiler/judge/passes/slice_pass.h"
#include "profiler/judge/passes/special_values_check.h"
#include "profiler/judge/passes/state_independence_check.h"
#include "profiler/judge/passes/stream_pass.h"

namespace kb::judge {

PassSlots::~PassSlots() {
  for (VariantProcess* p : {servers_.baseline, servers_.candidate}) try {
      if (p) p->ask(slot_request(Op::unbind, ids_), servers_.timeout_s);
    } catch (const std::exception&) {
      // A dead server holds no mappings.
    }
}

PassSet::PassSet(const PassContext& ctx, size_t size, int id, bool scaled, StreamChoice stream)
    : base(ctx.job, size), cand(ctx.job, size), checks(size_checks(ctx.job, base, scaled)), slots(ctx.servers, {id}) {
  bind_slot(*ctx.servers.baseline, id, base, ctx.servers.timeout_s, stream);
  bind_slot(*ctx.servers.candidate, id, cand, ctx.servers.timeout_s, stream);
}

TrialPlan first_pass_trial(PassContext& ctx, size_t size) {
  TrialPlan p;
  p.size = size;
  p.seed = next_pass_seed(ctx);
  p.distribution = ctx.job.distributions.front();
  return p;
}

void skip_for_original(PassContext& ctx, std::string_view pass, const std::string& condition, const std::string& why) {
  const std::string line = std::string(pass) + ": " + condition + ": the original " + why;
  spdlog::info("skipped: {}", line);
  ctx.report.skipped_checks.push_back(line);
}

uint64_t next_pass_seed(PassContext& ctx) {
  const uint64_t seed = ctx.job.raw.seed + static_cast<uint64_t>(ctx.report.seeds.size()) + 1;
  ctx.report.seeds.push_back(seed);
  return seed;
}

VerificationOutcome run_pass(PassKey key, const PassPlan& plan, PassContext& ctx) {
  switch (key) {
    case PassKey::state_independence:
      return check_state_independence(ctx.job, ctx.servers, ctx.main.base, ctx.main.cand, ctx.main.checks, ctx.scratch,
                                      ctx.report);
    case PassKey::special_values:
      return check_special_values(ctx.job, ctx.servers, ctx.main.base, ctx.main.cand, ctx.main.checks, ctx.scratch,
                                  ctx.report);
    case PassKey::generalization_sizes: return check_generalization_sizes(ctx.job, ctx.servers, ctx.report);
    case PassKey::alignment: return check_alignment(ctx.job, ctx.servers, ctx.scratch, ctx.report);
    case PassKey::per_thread_stream: return verify_per_thread_stream(ctx.job, ctx.servers, ctx.report);
    case PassKey::graph_capture: return check_graph_capture(plan, ctx);
    case PassKey::concurrent_callers: return check_concurrent_callers(plan, ctx);
    case PassKey::ledger: return check_ledger(plan, ctx);
    case PassKey::gpu_slice: return check_gpu_slice(plan, ctx);
  }
  return {};
}

}  // namespace kb::judge
