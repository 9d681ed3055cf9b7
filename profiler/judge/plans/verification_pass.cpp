#include "profiler/judge/plans/verification_pass.h"

#include <array>
#include <stdexcept>

#include "core/arg_types.h"
#include "core/errors.h"
#include "profiler/judge/plans/alignment_cases.h"
#include "profiler/judge/plans/stream_pass_plan.h"

namespace kb::judge {
namespace {

bool any_special_input(const DecodedJob& job) {
  for (const auto& a : job.args)
    if (a.is_read() && dtype_is_float(a.type) && !a.has_range()) return true;
  return false;
}

PassPlan every_size(const DecodedJob& job) {
  if (job.size_count() == 0) return PassPlan::not_for("the job has no size sets");
  return {};
}

PassPlan plan_special_values(const DecodedJob& job) {
  if (!any_special_input(job)) return PassPlan::not_for("no float input without a configured range");
  return every_size(job);
}

PassPlan plan_generalization(const DecodedJob& job) {
  if (job.all_size_count() == job.size_count()) return PassPlan::not_for("the job has no generalization sizes");
  return {};
}

PassPlan plan_smallest(const DecodedJob& job) {
  if (job.size_count() == 0) return PassPlan::not_for("the job has no size sets");
  PassPlan p;
  p.sizes = {smallest_size_index(job)};
  return p;
}

PassPlan plan_per_thread(const DecodedJob& job) {
  const auto size = per_thread_pass_size(job);
  if (!size) return PassPlan::not_for("the launcher takes no stream argument");
  PassPlan p;
  p.sizes = {*size};
  return p;
}

PassPlan plan_graph_capture(const DecodedJob& job) {
  // Without a stream argument the launcher's work goes to the legacy default stream, which no
  // caller can capture: the original could not be captured either.
  if (!stream_arg(job)) return PassPlan::not_for("the launcher takes no stream argument, so no caller can capture it");
  return plan_smallest(job);
}

PassPlan plan_concurrent(const DecodedJob& job) {
  if (job.size_count() == 0) return PassPlan::not_for("the job has no size sets");
  PassPlan p;
  p.sizes = concurrent_pass_sizes(job);
  return p;
}

PassPlan plan_largest(const DecodedJob& job) {
  if (job.size_count() == 0) return PassPlan::not_for("the job has no size sets");
  PassPlan p;
  p.sizes = {largest_size_index(job)};
  return p;
}

constexpr std::array kPasses = {
    PassInfo{PassKey::state_independence, "state independence",
             "the result depends only on the current inputs: a few input elements changed in place, outputs "
             "holding the previous result",
             every_size},
    PassInfo{PassKey::special_values, "special values",
             "NaN, +-Inf, -0 and denormals in one input at a time give NaN/Inf where the original's do",
             plan_special_values},
    PassInfo{PassKey::generalization_sizes, "generalization sizes",
             "right at sizes nobody configured (the smallest allowed, odd, prime, beyond the largest)",
             plan_generalization},
    PassInfo{PassKey::alignment, "alignment",
             "right when every buffer starts past a 256-byte boundary, as far as its element type allows",
             plan_smallest},
    PassInfo{PassKey::per_thread_stream, "per-thread default stream",
             "right and in order when the caller passes cudaStreamPerThread as the stream", plan_per_thread},
    PassInfo{PassKey::gpu_slice, "a slice of the GPU",
             "one call on a few of the GPU's SMs (a green context) finishes within a watchdog and gives the right "
             "results: no block waits for blocks it assumes are running at once",
             plan_largest, false},
    PassInfo{PassKey::graph_capture, "CUDA graph capture",
             "one call captured on the caller's stream in global capture mode, replayed twice on new input "
             "contents, gives the right results",
             plan_graph_capture, false},
    PassInfo{PassKey::concurrent_callers, "concurrent callers",
             "two calls at once (two non-blocking streams from one thread, then two host threads) on separate "
             "buffers of different sizes each give their own right result",
             plan_concurrent, false},
    PassInfo{PassKey::ledger, "citizen's ledger",
             "many calls leave device memory, streams, events, graphs, host threads, device-wide settings and a "
             "pending error as the original leaves them",
             plan_smallest, false},
};

}  // namespace

size_t largest_size_index(const DecodedJob& job) {
  size_t largest = 0;
  for (size_t s = 1; s < job.size_count(); ++s)
    if (size_set_bytes(job, s) > size_set_bytes(job, largest)) largest = s;
  return largest;
}

std::vector<size_t> concurrent_pass_sizes(const DecodedJob& job) {
  const size_t first = smallest_size_index(job);
  size_t second = first;
  for (size_t s = 0; s < job.size_count(); ++s) {
    if (s == first) continue;
    if (second == first || size_set_bytes(job, s) < size_set_bytes(job, second)) second = s;
  }
  return {first, second};
}

bool is_screening(const DecodedJob& job) { return job.raw.timed_sizes > 0; }

std::span<const PassInfo> verification_passes() { return kPasses; }

const PassInfo& pass_info(PassKey key) {
  for (const PassInfo& p : kPasses)
    if (p.key == key) return p;
  throw Error("a verification pass missing from the registry");
}

}  // namespace kb::judge
