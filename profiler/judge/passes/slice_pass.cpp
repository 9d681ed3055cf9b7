#include "profiler/judge/passes/slice_pass.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {
namespace {

constexpr int kSliceSlot = 3100;  // apart from the main trials' (0 .. sizes-1) and other passes'
// The original's call on the slice: a generous bound (a kernel of seconds on the whole GPU takes
// eight times as long on an eighth of it); past it the original hangs there too and the pass is
// skipped.
constexpr double kOriginalLimitS = 120;

std::string slice_condition(const DecodedJob& job, size_t size, const Reply& slice) {
  return "one call on a slice of the GPU, " + std::to_string(static_cast<int>(slice.value)) + " of its " +
         std::to_string(static_cast<int>(slice.value2)) + " SMs (size " + job.raw.size_labels[size] + ")";
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

double slice_watchdog_s(double original_s, double limit_s) {
  return std::min(limit_s, std::max(10.0, 20.0 * original_s));
}

VerificationOutcome check_gpu_slice(const PassPlan& plan, PassContext& ctx) {
  const DecodedJob& job = ctx.job;
  const Servers& servers = ctx.servers;
  const size_t s = plan.sizes.front();
  const TrialPlan p = first_pass_trial(ctx, s);
  std::string condition = "one call on a slice of the GPU (size " + job.raw.size_labels[s] + ")";
  set_phase("verification with " + condition);
  const bool scaled = needs_error_scale(job);
  PassSet set(ctx, s, kSliceSlot, scaled);
  ArgSet &base = set.base, &cand = set.cand;
  SizeChecks& checks = set.checks;

  auto skip = [&](const std::string& why) {
    skip_for_original(ctx, "a slice of the GPU", condition, why);
    return VerificationOutcome{};
  };
  Request call = slot_request(Op::slice_call, {kSliceSlot}, static_cast<int>(kSliceMinSms));
  double original_s = 0;
  try {
    if (scaled) {
      const VerificationOutcome sc = compute_error_scale(job, servers, p, checks, base, cand, condition, kSliceSlot);
      if (sc.failed()) return skip("fails on |inputs|: " + sc.reason);
    }
    prepare(job, p, checks, base, cand);
    put_scalars(call, base);
    const auto start = std::chrono::steady_clock::now();
    const Reply b = servers.baseline->ask(call, std::min(servers.timeout_s, kOriginalLimitS));
    original_s = seconds_since(start);
    expect_no_harness_error(b, "call the original on a slice of the GPU");
    if (b.status == Status::ok && b.value == 0) {
      // The judge's GPU or driver, not the original: named with the skips all the same.
      const std::string line = "a slice of the GPU: not run: " + untrusted_note(b);
      spdlog::info("skipped {}", line);
      ctx.report.skipped_checks.push_back(line);
      return {};
    }
    if (b.status == Status::ok) condition = slice_condition(job, s, b);
    if (b.status != Status::ok) return skip("fails there: " + fault_text(b));
  } catch (const VariantGone& g) {
    if (g.who != Who::baseline) throw;
    servers.restart_original();
    return skip(std::string(g.timed_out ? "does not finish there either: " : "crashed there: ") + g.what());
  }
  const double watchdog_s = slice_watchdog_s(original_s, servers.timeout_s);
  Reply c;
  try {
    c = servers.candidate->ask(call, watchdog_s);
  } catch (const VariantGone& g) {
    if (g.who != Who::candidate || !g.timed_out) throw;
    throw VariantGone(Who::candidate, true, false,
                      "a slice of the GPU: the candidate's call did not finish within " +
                          std::to_string(static_cast<int>(watchdog_s)) + " s where the original's took " +
                          std::to_string(original_s).substr(0, 5) + " s (" + condition +
                          "): a kernel that waits for blocks it assumes are running at once (a grid-wide barrier "
                          "without a cooperative launch, a grid sized for a fixed SM count) deadlocks on a smaller "
                          "GPU, under MPS or beside the caller's other work");
  }
  expect_no_harness_error(c, "call the candidate on a slice of the GPU", *servers.candidate);
  if (c.status != Status::ok) {
    const std::string fault = fault_text(c);
    if (fault.find("cudaErrorCooperativeLaunchTooLarge") != std::string::npos) {
      const std::string line = "a slice of the GPU: " + condition +
                               ": the candidate's cooperative launch is sized for the whole GPU and the runtime "
                               "refuses it on the slice (a cooperative launch guarantees its blocks run at once)";
      spdlog::info("not held: {}", line);
      ctx.report.warnings.push_back(line);
      return {};
    }
    if (fault.find("cudaErrorInvalidResourceHandle") != std::string::npos &&
        fault.find("at launch") != std::string::npos) {
      // Measured on an H200 (driver 580, CUDA 13): a launch on the per-thread default stream
      // (code built with --default-stream per-thread) fails so in a green context, also on a thread
      // whose first use of that stream is there. The runtime's limit, not the candidate's fault: the
      // check is not run, and the report says so (a kernel that hides a deadlock behind it would
      // have to know it is on a slice, and could then pass the check anyway).
      const std::string line = "a slice of the GPU: not run for the candidate: the CUDA runtime refuses its launch "
                               "in the slice's green context (" +
                               fault + "), as it refuses launches on the per-thread default stream there";
      spdlog::info("skipped {}", line);
      ctx.report.skipped_checks.push_back(line);
      return {};
    }
    return {Verdict::crashed, "a slice of the GPU: the candidate's call failed (" + condition + "): " + fault};
  }
  const VerificationOutcome checked = check_call(job, base, cand, checks, ctx.scratch, ctx.report, condition);
  if (checked.verdict == Verdict::infra_error) return skip("changed an input there: " + checked.reason);
  if (checked.failed()) return {checked.verdict, lead_with("a slice of the GPU", condition, checked.reason)};
  ctx.report.passes.push_back("a slice of the GPU at size " + job.raw.size_labels[s] + ": " + condition +
                              ", right within the watchdog");
  return {};
}

}  // namespace kb::judge
