#include "profiler/judge/server/timer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/harness_kernels.h"
#include "profiler/judge/timing/timing_stats.h"

namespace kb::judge {
namespace {

// Long enough for any sane launcher to queue its work; a launcher that synchronizes inside
// (cudaDeviceSynchronize, cudaFree, a blocking copy) would otherwise wait on the blocker forever.
constexpr uint64_t kBlockerTimeoutNs = 100'000'000;

void** slot_args(const TimedCalls& v, int k) { return v.slots[static_cast<size_t>(k) % v.slots.size()]->args(); }

}  // namespace

SampleTimer::SampleTimer(bool flush_l2) : flush_(flush_l2) {
  int device = 0, l2 = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "reading the L2 size");
  flush_bytes_ = (static_cast<size_t>(std::max(l2, 1 << 20)) * 2 + 15) / 16 * 16;
  cuda_check(cudaMalloc(&flush_buffer_, flush_bytes_), "allocating the L2 flush buffer");
  cuda_check(cudaMemset(flush_buffer_, 1, flush_bytes_), "initializing the L2 flush buffer");
  void* sink = nullptr;
  cuda_check(cudaMalloc(&sink, sizeof(int)), "allocating the L2 flush sink");
  flush_sink_ = static_cast<int*>(sink);
  void* flags = nullptr;
  cuda_check(cudaHostAlloc(&flags, 2 * sizeof(int32_t), cudaHostAllocMapped), "allocating blocking-kernel flags");
  release_ = static_cast<int32_t*>(flags);
  timed_out_ = release_ + 1;
  *release_ = 1;
  *timed_out_ = 0;
  cuda_check(cudaEventCreate(&start_), "creating a timing event");
  cuda_check(cudaEventCreate(&stop_), "creating a timing event");
}

SampleTimer::~SampleTimer() {
  drop_graph();
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (release_) cudaFreeHost(release_);
  if (flush_sink_) cudaFree(flush_sink_);
  if (flush_buffer_) cudaFree(flush_buffer_);
}

void SampleTimer::flush_l2(cudaStream_t stream) {
  cuda_check(launch_l2_flush(flush_buffer_, flush_bytes_, flush_sink_, stream), "flushing the L2");
}

CallProfile SampleTimer::profile_calls(const TimedCalls& v, int calls) {
  ActivityMonitor& activity = ActivityMonitor::instance();
  CallProfile profile;
  uint32_t expected_stream = 0;
  try {
    activity.enable();
    expected_stream = activity.stream_id_of(v.capture_stream());
  } catch (const HarnessError& e) {
    profile.note = std::string("no CUPTI trace of the call (") + e.what() + ")";
    spdlog::warn("{}", profile.note);
    return profile;
  }
  std::vector<double> spans;
  for (int c = 0; c < calls; ++c) {
    flush_l2(v.order_stream());
    cuda_check(cudaDeviceSynchronize(), "synchronizing before a traced call");
    activity.take();
    const uint64_t since = activity.timestamp();
    call_variant(v.fn, slot_args(v, 0), v.who);
    {
      CallScope scope(v.who, "");
      check_variant_sync(cudaDeviceSynchronize(), v.who, "");
    }
    auto records = records_since(activity.take(), since);
    if (records.empty()) continue;
    std::vector<std::pair<uint64_t, uint64_t>> intervals;
    for (const auto& r : records) intervals.emplace_back(r.start, r.end);
    spans.push_back(static_cast<double>(union_length(std::move(intervals))) / 1e3);
    profile.records = std::move(records);
  }
  activity.disable();
  profile.span_us = summarize(spans).median;
  profile.on_capture_stream = !profile.records.empty();
  for (const auto& r : profile.records)
    if (r.stream != expected_stream) profile.on_capture_stream = false;
  return profile;
}

void SampleTimer::warm_up(const TimedCalls& v, int runs) {
  for (int i = 0; i < std::max(1, runs); ++i) call_variant(v.fn, slot_args(v, i), v.who);
  CallScope scope(v.who, "");
  check_variant_sync(cudaDeviceSynchronize(), v.who, "during warm-up");
}

void SampleTimer::drop_graph() {
  if (graph_) cudaGraphExecDestroy(graph_);
  graph_ = nullptr;
  graph_launches_ = 0;
}

bool SampleTimer::capture(const TimedCalls& v, int launches) {
  drop_graph();
  cudaGraph_t graph = nullptr;
  const cudaStream_t stream = v.capture_stream();
  bool ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess;
  if (ok) {
    CallScope scope(v.who, "");
    for (int k = 0; k < launches; ++k)
      if (v.fn(slot_args(v, k)) != 0) ok = false;
  }
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ok = ok && end == cudaSuccess && graph != nullptr;
  size_t nodes = 0;
  if (ok) ok = cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess && nodes >= static_cast<size_t>(launches);
  if (ok) ok = cudaGraphInstantiate(&graph_, graph, 0) == cudaSuccess;
  if (graph) cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // a failed capture leaves a non-sticky error behind
  if (!ok) graph_ = nullptr;
  graph_launches_ = ok ? launches : 0;
  return ok;
}

SampleTime SampleTimer::sample(const TimedCalls& v, int launches) {
  const cudaStream_t caller = v.order_stream();
  if (flush_) flush_l2(caller);
  if (use_blocker_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *const_cast<volatile int32_t*>(release_) = 0;
    *const_cast<volatile int32_t*>(timed_out_) = 0;
    cuda_check(launch_blocking_kernel(release_, timed_out_, kBlockerTimeoutNs, caller),
               "launching the blocking kernel");
  }
  cuda_check(cudaEventRecord(start_, caller), "recording the start event");
  if (graph_ && graph_launches_ == launches) {
    CallScope scope(v.who, "");
    // Replayed where it was captured: the given stream, which the events are on; without one, the
    // per-thread default stream, which the legacy stream's events are ordered with.
    check_variant_sync(cudaGraphLaunch(graph_, v.capture_stream()), v.who, "launching the captured graph");
  } else {
    for (int k = 0; k < launches; ++k) call_variant(v.fn, slot_args(v, k), v.who);
  }
  cuda_check(cudaEventRecord(stop_, caller), "recording the stop event");
  if (use_blocker_) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *const_cast<volatile int32_t*>(release_) = 1;
  }
  {
    CallScope scope(v.who, "");
    check_variant_sync(cudaEventSynchronize(stop_), v.who, "");
  }
  SampleTime t;
  if (use_blocker_ && *const_cast<volatile int32_t*>(timed_out_) != 0) {
    use_blocker_ = false;
    t.blocked = true;
    return t;
  }
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "reading the timing events");
  t.us_per_launch = static_cast<double>(ms) * 1e3 / std::max(1, launches);
  return t;
}

}  // namespace kb::judge
