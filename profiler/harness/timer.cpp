#include "profiler/harness/timer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "profiler/harness/cuda_check.h"
#include "profiler/harness/harness_kernels.h"
#include "profiler/harness/output_comparator.h"
#include "profiler/harness/stopping_criterion.h"
#include "profiler/harness/timing_compare.h"
#include "profiler/harness/timing_stats.h"

namespace kb::harness {
namespace {

// Long enough for any sane launcher to queue its work; a launcher that synchronizes inside
// (cudaDeviceSynchronize, cudaFree, a blocking copy) would otherwise wait on the blocker forever.
constexpr uint64_t kBlockerTimeoutNs = 100'000'000;

double wall_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::string join_notes(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

}  // namespace

struct Timer::State {
  TimedVariant v;
  bool use_blocker = true;
  int launches = 1;
  cudaGraphExec_t graph = nullptr;
  bool capturable = false;
  std::vector<double> samples, clocks;  // every valid sample, us per launch, and its SM clock
  std::vector<std::string> notes;
};

Timer::Timer(const RunnerJob& job, ClockMonitor& clocks, ActivityMonitor& activity)
    : job_(job), clocks_(clocks), activity_(activity) {
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

Timer::~Timer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (release_) cudaFreeHost(release_);
  if (flush_sink_) cudaFree(flush_sink_);
  if (flush_buffer_) cudaFree(flush_buffer_);
}

void Timer::flush_l2() {
  cuda_check(launch_l2_flush(flush_buffer_, flush_bytes_, flush_sink_, cudaStreamLegacy), "flushing the L2");
}

CallProfile Timer::profile_calls(const TimedVariant& v, int calls) {
  CallProfile profile;
  uint32_t per_thread = 0;
  try {
    activity_.enable();
    per_thread = activity_.stream_id_of(cudaStreamPerThread);
  } catch (const HarnessError& e) {
    profile.note = std::string("no CUPTI trace of the call (") + e.what() + ")";
    spdlog::warn("{}", profile.note);
    return profile;
  }
  std::vector<double> spans;
  for (int c = 0; c < calls; ++c) {
    v.args->restore_inouts();
    flush_l2();
    cuda_check(cudaDeviceSynchronize(), "synchronizing before a traced call");
    activity_.take();
    const uint64_t since = activity_.timestamp();
    call_variant(v.fn, v.args->args(), v.who);
    {
      CallScope scope(v.who, "");
      check_variant_sync(cudaDeviceSynchronize(), v.who, "");
    }
    auto records = records_since(activity_.take(), since);
    if (records.empty()) continue;
    uint64_t first = records.front().start, last = records.front().end;
    for (const auto& r : records) {
      first = std::min(first, r.start);
      last = std::max(last, r.end);
    }
    spans.push_back(static_cast<double>(last - first) / 1e3);
    profile.records = std::move(records);
  }
  activity_.disable();
  profile.span_us = summarize(spans).median;
  profile.on_per_thread_stream = !profile.records.empty();
  for (const auto& r : profile.records)
    if (r.stream != per_thread) profile.on_per_thread_stream = false;
  return profile;
}

void Timer::warm_up(const TimedVariant& v) {
  const int64_t runs = std::max<int64_t>(1, job_.raw.bench.warmup_runs);
  for (int64_t i = 0; i < runs; ++i) {
    v.args->restore_inouts();
    call_variant(v.fn, v.args->args(), v.who);
  }
  CallScope scope(v.who, "");
  check_variant_sync(cudaDeviceSynchronize(), v.who, "during warm-up");
}

void Timer::try_capture(State& s) {
  cudaGraph_t graph = nullptr;
  bool ok = cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeRelaxed) == cudaSuccess;
  if (ok) {
    CallScope scope(s.v.who, "");
    for (int k = 0; k < s.launches; ++k)
      if (s.v.fn(s.v.args->args()) != 0) ok = false;
  }
  const cudaError_t end = cudaStreamEndCapture(cudaStreamPerThread, &graph);
  ok = ok && end == cudaSuccess && graph != nullptr;
  size_t nodes = 0;
  if (ok) ok = cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess && nodes >= static_cast<size_t>(s.launches);
  if (ok) ok = cudaGraphInstantiate(&s.graph, graph, 0) == cudaSuccess;
  if (graph) cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // a failed capture leaves a non-sticky error behind
  if (!ok) s.graph = nullptr;
}

double Timer::take_sample(State& s, bool allow_graph) {
  const auto& bench = job_.raw.bench;
  s.v.args->restore_inouts();
  if (bench.flush_l2) flush_l2();
  if (s.use_blocker) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *const_cast<volatile int32_t*>(release_) = 0;
    *const_cast<volatile int32_t*>(timed_out_) = 0;
    cuda_check(launch_blocking_kernel(release_, timed_out_, kBlockerTimeoutNs, cudaStreamLegacy),
               "launching the blocking kernel");
  }
  cuda_check(cudaEventRecord(start_, cudaStreamLegacy), "recording the start event");
  const bool graph = allow_graph && s.graph != nullptr;
  if (graph) {
    CallScope scope(s.v.who, "");
    check_variant_sync(cudaGraphLaunch(s.graph, cudaStreamPerThread), s.v.who, "launching the captured graph");
  } else {
    for (int k = 0; k < (allow_graph ? s.launches : 1); ++k) call_variant(s.v.fn, s.v.args->args(), s.v.who);
  }
  cuda_check(cudaEventRecord(stop_, cudaStreamLegacy), "recording the stop event");
  if (s.use_blocker) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *const_cast<volatile int32_t*>(release_) = 1;
  }
  {
    CallScope scope(s.v.who, "");
    check_variant_sync(cudaEventSynchronize(stop_), s.v.who, "");
  }
  if (s.use_blocker && *const_cast<volatile int32_t*>(timed_out_) != 0) {
    s.use_blocker = false;
    s.notes.push_back("the launcher synchronizes inside (it waited on the blocking kernel): timed without it, so "
                      "host launch overhead is included");
    return -1;
  }
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "reading the timing events");
  const int launches = allow_graph ? s.launches : 1;
  return static_cast<double>(ms) * 1e3 / launches;
}

std::vector<TimingStats> Timer::measure(const std::vector<TimedVariant>& variants,
                                        const std::vector<CallProfile>& profiles) {
  const auto& bench = job_.raw.bench;
  std::vector<State> states(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    states[i].v = variants[i];
    states[i].capturable = i < profiles.size() && profiles[i].on_per_thread_stream;
    if (i < profiles.size() && !profiles[i].note.empty()) states[i].notes.push_back(profiles[i].note);
    warm_up(variants[i]);
  }

  // A few single-launch samples decide how many launches a sample needs.
  double shortest = HUGE_VAL;
  for (auto& s : states) {
    std::vector<double> probe;
    for (int i = 0; i < 5 && probe.size() < 3; ++i) {
      const double us = take_sample(s, false);
      if (us >= 0) probe.push_back(us);
    }
    shortest = std::min(shortest, summarize(probe).median);
  }
  // Every variant is timed the same way: a graph replay has smaller gaps between launches than
  // back-to-back launches, so a graph for one and not the other would fake a speedup.
  const int launches = launches_per_sample(shortest, bench.graph_below_us);
  bool all_capturable = true;
  for (const auto& s : states) all_capturable = all_capturable && s.capturable;
  for (auto& s : states) {
    s.launches = launches;
    if (launches > 1 && all_capturable) try_capture(s);
  }
  bool all_captured = launches > 1;
  for (const auto& s : states) all_captured = all_captured && s.graph != nullptr;
  for (auto& s : states) {
    if (launches == 1) continue;
    if (all_captured) {
      s.notes.push_back("timed as a CUDA graph of " + std::to_string(launches) + " launches per sample");
      continue;
    }
    if (s.graph) {
      cudaGraphExecDestroy(s.graph);
      s.graph = nullptr;
    }
    s.notes.push_back("timed as " + std::to_string(launches) + " back-to-back launches per sample (" +
                      (all_capturable ? std::string("graph capture failed")
                                      : std::string("graph capture impossible: a launcher uses the legacy default "
                                                    "stream")) +
                      ")");
  }

  StoppingParams params;
  params.min_samples = bench.min_samples;
  params.max_samples = bench.max_samples;
  params.min_time_s = bench.min_time_s;
  params.max_noise = bench.max_noise;
  params.timeout_s = bench.timeout_s;
  std::vector<StoppingCriterion> criteria(states.size(), StoppingCriterion(params));
  const double max_mhz = clocks_.max_sm_mhz();
  const double begin = wall_seconds();
  for (;;) {
    bool all_done = true;
    for (size_t i = 0; i < states.size(); ++i) {
      const double us = take_sample(states[i], true);
      if (us < 0) continue;
      const double mhz = clocks_.current_sm_mhz();
      states[i].samples.push_back(us);
      states[i].clocks.push_back(mhz);
      if (!clock_sagged(mhz, max_mhz, bench.max_clock_sag)) criteria[i].add_sample(us * launches);
    }
    const double elapsed = wall_seconds() - begin;
    for (auto& c : criteria) all_done = c.finished(elapsed) && all_done;
    // The loop also ends for everyone on the wall-time or sample limit of any.
    bool hard_stop = false;
    for (size_t i = 0; i < states.size(); ++i)
      if (static_cast<int64_t>(states[i].samples.size()) >= bench.max_samples || elapsed >= bench.timeout_s)
        hard_stop = true;
    if (all_done || hard_stop) break;
  }

  std::vector<TimingStats> out;
  for (size_t i = 0; i < states.size(); ++i) {
    State& s = states[i];
    std::vector<double> kept, kept_clocks;
    for (size_t k = 0; k < s.samples.size(); ++k)
      if (!clock_sagged(s.clocks[k], max_mhz, bench.max_clock_sag)) {
        kept.push_back(s.samples[k]);
        kept_clocks.push_back(s.clocks[k]);
      }
    int64_t n_dropped = static_cast<int64_t>(s.samples.size() - kept.size());
    if (!clocks_.available()) {
      s.notes.push_back(clocks_.unavailable_reason() + ": SM clock not checked, no samples dropped");
    } else if (kept.size() * 2 < s.samples.size()) {
      // A sustained clock below the maximum (a power or thermal limit under this load) is the
      // operating point, not a transient: dropping most samples would bias the result.
      s.notes.push_back("the SM clock stayed more than " + format_number(bench.max_clock_sag * 100) +
                        "% under its maximum " + format_number(max_mhz) + " MHz in most samples: all kept");
      kept = s.samples;
      kept_clocks = s.clocks;
      n_dropped = 0;
    }
    const SampleSummary sum = summarize(kept);
    TimingStats t;
    t.median_us = sum.median;
    t.q1_us = sum.q1;
    t.q3_us = sum.q3;
    t.min_us = sum.min;
    t.max_us = sum.max;
    t.mean_us = sum.mean;
    t.noise = sum.noise;
    t.samples = sum.count;
    t.dropped_samples = n_dropped;
    t.launches_per_sample = s.launches;
    t.l2_flushed = bench.flush_l2 && s.launches == 1;
    if (bench.flush_l2 && s.launches > 1) s.notes.push_back("L2 flushed before each sample, not each launch");
    t.stop_reason = criteria[i].reason().empty() ? (wall_seconds() - begin >= bench.timeout_s ? "timeout" : "max samples")
                                                 : criteria[i].reason();
    t.sm_clock_mhz = summarize(kept_clocks).median;
    t.cupti_span_us = i < profiles.size() ? profiles[i].span_us : 0;
    if (t.cupti_span_us > 0 && s.launches == 1 && t.median_us < 0.95 * t.cupti_span_us)
      s.notes.push_back("the event-timed median " + format_number(t.median_us) + " us is " +
                        format_number((1 - t.median_us / t.cupti_span_us) * 100) + "% below the GPU span " +
                        format_number(t.cupti_span_us) +
                        " us CUPTI traced for one call: work escaped the timed region");
    t.notes = join_notes(s.notes);
    if (s.graph) cudaGraphExecDestroy(s.graph);
    out.push_back(t);
  }
  return out;
}

}  // namespace kb::harness
