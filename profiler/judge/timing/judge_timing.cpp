#include "profiler/judge/timing/judge_timing.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/number_format.h"
#include "core/speedup_rule.h"
#include "core/timing_repetitions.h"
#include "profiler/judge/buffers/arg_inputs.h"
#include "profiler/judge/buffers/guard_check.h"
#include "profiler/judge/outputs/device_checks.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/timing/clock_monitor.h"
#include "profiler/judge/timing/stopping_criterion.h"
#include "profiler/judge/timing/timing_compare.h"
#include "profiler/judge/timing/timing_stats.h"
#include "profiler/judge/timing/wall_clock_bound.h"

namespace kb::judge {
namespace {

// Timing uses its own inputs, apart from every verification seed.
constexpr uint64_t kTimingSeedSalt = 0x7157A11CE5EEDull;
// Per variant, the most device memory the extra argument slots of one size may take.
constexpr size_t kSlotBudgetBytes = size_t{512} << 20;
// A timed sample's outputs are checked for skipped or stale work, not for precision (verification
// did that): the tolerance is widened so that an honest kernel on other inputs never trips it.
constexpr double kSampleToleranceFactor = 4;
// A claim the clock disagrees with gets up to this many batches in all before it is rejected: an
// honest 13 us candidate was rejected on an H200 (2026-11-26) at 37.5 us per call against a
// limit of 36.5 us, the batches' fixed cost varying by tens of microseconds.
constexpr int kMaxWallClockBatches = 9;
constexpr int kMaxWallClockCalls = 64;
constexpr double kWallClockTargetUs = 2000;  // enough work per batch that overheads are small
constexpr int kFixedCostBatches = 3;         // one-call batches of the original, best of
// A fill of the candidate's batch inputs this much slower than the original's means the GPU was
// shared with something while the inputs were being written.
constexpr double kFillSlowdown = 2;
constexpr double kFillSlackUs = 200;

double wall_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::string join_notes(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

// One variant at one size: its server and the argument slots the judge lends it.
struct Timed {
  VariantProcess* server = nullptr;
  std::vector<std::unique_ptr<ArgSet>> slots;
  std::vector<int> ids;
  std::vector<std::unique_ptr<ArgSet>> batch;
  std::vector<int> batch_ids;
  double span_us = 0;  // the GPU span of one call, as the server traced it (a claim)
  bool capturable = false, captured = false;
  std::vector<double> samples, clocks;
  std::vector<std::string> notes;
};

// What the wall-clock cross-check at one size found.
struct WallClockFinding {
  enum class Kind {
    agrees,        // the clock bounds the event-timed claim
    wrong_output,  // a call of a batch computed something other than the original did: a wrong result
    disagrees,     // the clock (or the fill before it) contradicts the claim: rejected
    clock_rules,   // the clock saw more than the claim, all of it on the caller's stream: the
                   // clock's figures judge the size (wall_clock_ruling)
  };
  Kind kind = Kind::agrees;
  std::string message;  // wrong_output: what differed; disagrees: the rejection's reason
};

class SizeTimer {
 public:
  SizeTimer(const DecodedJob& job, const Servers& servers, size_t size, ClockMonitor& clocks)
      : job_(job), servers_(servers), size_(size), clocks_(clocks) {
    variants_.emplace_back();
    variants_.back().server = servers.baseline;
    if (servers.candidate) {
      variants_.emplace_back();
      variants_.back().server = servers.candidate;
    }
    // One counter per (slot, argument) of the largest set of pairs compared at once.
    void* c = nullptr;
    counter_count_ = std::max<size_t>(kMaxSlots, kMaxWallClockCalls) * std::max<size_t>(1, job.args.size());
    cuda_check(cudaMalloc(&c, counter_count_ * sizeof(unsigned long long)), "allocating check counters");
    counters_ = static_cast<unsigned long long*>(c);
    counts_.resize(counter_count_);
  }

  ~SizeTimer() {
    for (auto& v : variants_) {
      std::vector<int> ids = v.ids;
      ids.insert(ids.end(), v.batch_ids.begin(), v.batch_ids.end());
      if (ids.empty()) continue;
      try {
        v.server->ask(slot_request(Op::unbind, ids), servers_.timeout_s);
      } catch (const std::exception&) {
        // A dead server holds no mappings; its verdict is already being written.
      }
    }
    cudaFree(counters_);
  }

  // Times both variants; returns their stats (baseline first). Sets `failure` when a sample's
  // check failed (then the stats are incomplete). Adds its seconds by part to `parts`.
  std::vector<TimingStats> measure(std::string& failure, int64_t& checked, std::map<std::string, double>& parts);

  // The wall-clock cross-check.
  WallClockFinding wall_clock_check(const std::vector<TimingStats>& stats, SizeTiming& st);

  // The guard zones of every set lent at this size (samples and batches), once, after the last
  // call: checking them around each sample would slow the timing loop down for nothing, since a
  // write outside a buffer stays there until this check reads it.
  VerificationOutcome check_guards_once() const {
    const std::string when = "timing at size " + job_.raw.size_labels[size_];
    for (size_t n = 0; n < variants_.size(); ++n)
      for (const auto* sets : {&variants_[n].slots, &variants_[n].batch})
        for (const auto& set : *sets)
          if (const auto found = set->guard_violations(); !found.empty()) return guard_outcome(n == 0, found, when);
    return {};
  }

 private:
  int slot_id(int base, size_t k) const { return base + static_cast<int>(size_ * kMaxSlots + k); }

  void add_slot(Timed& v, std::vector<std::unique_ptr<ArgSet>>& slots, std::vector<int>& ids, int base) {
    auto set = std::make_unique<ArgSet>(job_, size_);
    for (size_t i = 0; i < job_.args.size(); ++i) {
      const auto& a = job_.args[i];
      if (a.is_value() && a.values[size_].empty())
        set->set_scalar(i, random_scalar(a.type, job_.distributions.front(), job_.raw.seed ^ kTimingSeedSalt, i));
    }
    ids.push_back(slot_id(base, slots.size()));
    bind_slot(*v.server, ids.back(), *set, servers_.timeout_s);
    slots.push_back(std::move(set));
  }

  // Fresh inputs from `seed` in every slot of `sets` (slot k from seed + k), outputs poisoned.
  void fill(std::vector<std::unique_ptr<ArgSet>>& sets, uint64_t seed) {
    for (size_t k = 0; k < sets.size(); ++k) {
      ArgSet& set = *sets[k];
      for (size_t i = 0; i < job_.args.size(); ++i)
        if (job_.args[i].is_read())
          fill_input_on_device(set, i, job_.distributions.front(), seed + k, cudaStreamLegacy);
      set.poison_outputs();
    }
  }

  // Compares slots 0..n-1 of the candidate with the original's after both ran on the same inputs:
  // every (slot, argument) check is queued on the GPU, then one read brings all the counts back.
  // Returns the first slot that differs and why; (n, "") when all match.
  std::pair<size_t, std::string> compare(const std::vector<std::unique_ptr<ArgSet>>& base,
                                         const std::vector<std::unique_ptr<ArgSet>>& cand, size_t n) {
    const size_t args = std::max<size_t>(1, job_.args.size());
    n = std::min(n, counter_count_ / args);
    cuda_check(cudaMemsetAsync(counters_, 0, n * args * sizeof(unsigned long long), cudaStreamLegacy),
               "clearing counters");
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < job_.args.size(); ++i) {
        const auto& a = job_.args[i];
        const ArgSet& b = *base[k];
        const ArgSet& c = *cand[k];
        // A workspace is the variant's own business: neither a result nor a read-only input.
        if (!a.is_buffer() || a.is_workspace() || b.bytes(i) == 0) continue;
        unsigned long long* counter = counters_ + k * args + i;
        if (a.is_written()) {
          uint64_t poison = 0;
          fill_poison(a.type, &poison, 1);
          cuda_check(launch_count_mismatches(b.device(i), c.device(i), static_cast<int>(a.type), b.count(i),
                                             a.tolerance.rtol * kSampleToleranceFactor,
                                             a.tolerance.atol * kSampleToleranceFactor, poison, counter,
                                             cudaStreamLegacy),
                     "comparing outputs");
        } else {
          cuda_check(launch_count_differences(b.device(i), c.device(i), b.bytes(i), counter, cudaStreamLegacy),
                     "comparing inputs");
        }
      }
    cuda_check(cudaMemcpy(counts_.data(), counters_, n * args * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
               "reading counters");
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < job_.args.size(); ++i)
        if (const unsigned long long found = counts_[k * args + i]; found != 0) {
          std::string why = describe(*base[k], *cand[k], i);
          // The GPU's count is the verdict; the read-back only explains it. Buffers that compare
          // equal when read back changed after the comparison ran: work still landing after
          // the call returned.
          if (why.empty())
            why = describe_change_after_check((job_.args[i].is_written() ? "output " : "input ") + job_.args[i].name,
                                              static_cast<int64_t>(found));
          return {k, why};
        }
    return {n, ""};
  }

  // Why argument `i` of the two sets differs (the counters said it does): read back and compared
  // element by element on the host.
  std::string describe(const ArgSet& base, const ArgSet& cand, size_t i) {
    const auto& a = job_.args[i];
    if (!a.is_written()) {
      const auto change = compare_input(a.type, base.download(i).data(), cand.download(i).data(), base.count(i));
      return describe_input_change(a.name, "candidate", change);
    }
    Tolerance wide{a.tolerance.rtol * kSampleToleranceFactor, a.tolerance.atol * kSampleToleranceFactor};
    const HostBuffer ref = base.download(i), got = cand.download(i);
    return describe_output_failure(a.name, compare_output(a.type, ref.data(), got.data(), base.count(i), wide), wide);
  }

  // One request whose failure ends the timing: the server's own error is the judge's problem
  // (HarnessError), the variant's fault is the variant's (`failed`, with the server's note).
  Reply ask(Timed& v, const Request& request, const char* doing, const char* failed) {
    const Reply r = v.server->ask(request, servers_.timeout_s);
    expect_no_harness_error(r, doing, *v.server);
    if (r.status == Status::fault)
      throw VariantGone(v.server->who(), false, false, std::string(failed) + ": " + untrusted_note(r));
    return r;
  }

  // `calls` traced calls of `v`: the GPU span of one call (a claim of its server) and whether its
  // work can be captured into a graph.
  void trace(Timed& v, int calls) {
    const Reply p = ask(v, slot_request(Op::profile, v.ids, calls), "trace a call", "a traced call failed");
    v.span_us = std::isfinite(p.value) ? p.value : 0;
    v.capturable = p.value2 != 0;
  }

  double sample(Timed& v, int launches) {
    const Reply r = ask(v, slot_request(Op::sample, v.ids, launches), "take a timing sample", "a timed launch failed");
    if (r.status == Status::blocked) {
      v.notes.push_back("the launcher synchronizes inside (it waited on the blocking kernel): timed without it, so "
                        "host launch overhead is included");
      return -1;
    }
    return std::isfinite(r.value) && r.value > 0 ? r.value : -1;
  }

  const DecodedJob& job_;
  const Servers& servers_;
  size_t size_;
  ClockMonitor& clocks_;
  std::vector<Timed> variants_;
  unsigned long long* counters_ = nullptr;
  size_t counter_count_ = 0;
  std::vector<unsigned long long> counts_;
  int launches_ = 1;
  TimingRepetitions reps_;  // this size's counts, from the original's first calls
};

std::vector<TimingStats> SizeTimer::measure(std::string& failure, int64_t& checked,
                                            std::map<std::string, double>& parts) {
  // Where the timing's seconds go (bench/search_throughput lists them): the set-up before any
  // sample, the probes, a graph's capture, then each sample round's inputs, timed calls, clock
  // reads and output checks.
  PhaseTimes part(parts);
  part.begin("set-up: slots, warm-up, traced calls");
  const auto& bench = job_.raw.bench;
  const uint64_t seed0 = (job_.raw.seed ^ kTimingSeedSalt) + (uint64_t{size_} << 32);
  for (auto& v : variants_) add_slot(v, v.slots, v.ids, 1000);
  // The original's first traced call says how long one call takes, and every count below follows
  // it (core/timing_repetitions.h): a 250 ms kernel is not called as often as a 5 us one. The
  // original's, not the candidate's: a candidate cannot choose how it is measured.
  Timed& original = variants_.front();
  fill(original.slots, seed0);
  cuda_check(cudaDeviceSynchronize(), "filling inputs");
  trace(original, 1);
  reps_ = timing_repetitions(original.span_us, bench);
  for (auto& v : variants_) {
    // At least one warm-up call, as before: a first call pays for what it sets up.
    ask(v, slot_request(Op::warm_up, v.ids, static_cast<int>(std::max<int64_t>(1, reps_.warmup_runs))), "warm up",
        "a warm-up call failed");
    // The span the verdict compares with the event-timed samples (escaped_work) is traced after
    // the warm-up, as the samples are taken. Traced before it (the variant's first calls on these
    // buffers), an honest one-kernel candidate's span ran 5-6% over its event-timed median on an
    // H200, twice (bias_gelu at 16M elements: 70.7 against 67.1 us), and it was vetoed as escaping
    // its stream. Fresh inputs again, as each sample has.
    fill(v.slots, seed0);
    cuda_check(cudaDeviceSynchronize(), "filling inputs");
    trace(v, static_cast<int>(reps_.traced_calls));
  }

  // A few single-launch samples decide how many launches a sample needs.
  part.begin("probes");
  double shortest = HUGE_VAL, original_us = 0;
  for (auto& v : variants_) {
    std::vector<double> probe;
    for (int64_t i = 0; i < reps_.probe_samples + 2 && static_cast<int64_t>(probe.size()) < reps_.probe_samples; ++i) {
      fill(v.slots, seed0 + 7 + static_cast<uint64_t>(i));
      cuda_check(cudaDeviceSynchronize(), "filling inputs");
      const double us = sample(v, 1);
      if (us >= 0) probe.push_back(us);
    }
    const double median = summarize(probe).median;
    if (&v == &original) original_us = median;
    shortest = std::min(shortest, median);
  }
  // The samples follow the original's event-timed probe (the traced span when it has none).
  reps_ = timing_repetitions(original_us > 0 ? original_us : original.span_us, bench);
  spdlog::debug("timing at size {}: one call of the original ~{:.1f} us: {} warm-up, {} to {} samples, {} wall-clock "
                "batches",
                job_.raw.size_labels[size_], original_us > 0 ? original_us : original.span_us, reps_.warmup_runs,
                reps_.min_samples, reps_.max_samples, reps_.wall_clock_batches);
  // Every variant is timed the same way: a graph replay has smaller gaps between launches than
  // back-to-back launches, so a graph for one and not the other would fake a speedup.
  launches_ = launches_per_sample(shortest, bench.graph_below_us);
  part.begin("slots and graph capture");
  if (launches_ > 1) {
    // Launch k of a sample works on slot k: each launch gets fresh inputs and its own outputs.
    // With its guard zones: a set of tiny buffers takes mostly guard.
    const size_t per_slot = std::max<size_t>(1, variants_.front().slots.front()->allocated_bytes());
    const size_t want = std::min<size_t>(
        {static_cast<size_t>(launches_), kMaxSlots, std::max<size_t>(1, kSlotBudgetBytes / per_slot)});
    for (auto& v : variants_)
      while (v.slots.size() < want) add_slot(v, v.slots, v.ids, 1000);
  }
  bool all_capturable = true;
  for (const auto& v : variants_) all_capturable = all_capturable && v.capturable;
  bool all_captured = launches_ > 1 && all_capturable;
  if (all_captured) {
    for (auto& v : variants_) {
      const Reply c = v.server->ask(slot_request(Op::capture, v.ids, launches_), servers_.timeout_s);
      expect_no_harness_error(c, "capture a graph", *v.server);
      v.captured = c.status == Status::ok && c.value != 0;
      all_captured = all_captured && v.captured;
    }
  }
  for (auto& v : variants_) {
    if (launches_ == 1) continue;
    if (all_captured) {
      v.notes.push_back("timed as a CUDA graph of " + std::to_string(launches_) + " launches per sample");
      continue;
    }
    if (v.captured) v.server->ask(slot_request(Op::drop_graph, v.ids), servers_.timeout_s);
    v.notes.push_back("timed as " + std::to_string(launches_) + " back-to-back launches per sample (" +
                      (all_capturable     ? std::string("graph capture failed")
                       : stream_arg(job_) ? "graph capture impossible: a launcher's work is not all on its stream "
                                            "argument '" +
                                                stream_arg(job_)->name + "'"
                                          : std::string("graph capture impossible: a launcher uses the legacy default "
                                                        "stream")) +
                      ")");
  }

  StoppingParams params;
  params.min_samples = reps_.min_samples;
  params.max_samples = reps_.max_samples;
  params.min_time_s = bench.min_time_s;
  params.max_noise = bench.max_noise;
  params.max_error = bench.max_error;
  params.timeout_s = bench.timeout_s;
  std::vector<StoppingCriterion> criteria(variants_.size(), StoppingCriterion(params));
  const double max_mhz = clocks_.max_sm_mhz();
  const double begin = wall_seconds();
  const size_t checked_slots = std::min<size_t>(static_cast<size_t>(launches_), variants_.front().slots.size());
  for (uint64_t round = 0;; ++round) {
    const uint64_t seed = seed0 + 1000 + round * kMaxSlots;
    part.begin("samples: inputs");
    for (auto& v : variants_) fill(v.slots, seed);
    cuda_check(cudaDeviceSynchronize(), "filling inputs");
    // The order alternates, so whatever the first sample after the judge's own GPU work pays (a
    // context switch) falls on both variants alike.
    for (size_t n = 0; n < variants_.size(); ++n) {
      const size_t i = round % 2 == 0 ? n : variants_.size() - 1 - n;
      part.begin("samples: timed calls");
      const double us = sample(variants_[i], launches_);
      if (us < 0) continue;
      part.begin("samples: clock reads");
      const double mhz = clocks_.current_sm_mhz();
      variants_[i].samples.push_back(us);
      variants_[i].clocks.push_back(mhz);
      if (!clock_sagged(mhz, max_mhz, bench.max_clock_sag)) criteria[i].add_sample(us * launches_);
    }
    if (variants_.size() > 1) {
      part.begin("samples: output checks");
      const auto [k, differ] = compare(variants_[0].slots, variants_[1].slots, checked_slots);
      if (!differ.empty()) {
        failure = "timed sample " + std::to_string(round + 1) + " at size " + job_.raw.size_labels[size_] +
                  (launches_ > 1 ? " (launch " + std::to_string(k + 1) + " of " + std::to_string(launches_) + ")"
                                 : "") +
                  ", on fresh inputs the candidate never saw before: " + differ;
        return {};
      }
      ++checked;
    }
    const double elapsed = wall_seconds() - begin;
    bool all_done = true;
    for (auto& c : criteria) all_done = c.finished(elapsed) && all_done;
    bool hard_stop = false;
    for (const auto& v : variants_)
      if (static_cast<int64_t>(v.samples.size()) >= reps_.max_samples || elapsed >= bench.timeout_s) hard_stop = true;
    if (all_done || hard_stop) break;
  }
  part.end();

  std::vector<TimingStats> out;
  for (size_t i = 0; i < variants_.size(); ++i) {
    Timed& v = variants_[i];
    std::vector<double> kept, kept_clocks;
    for (size_t k = 0; k < v.samples.size(); ++k)
      if (!clock_sagged(v.clocks[k], max_mhz, bench.max_clock_sag)) {
        kept.push_back(v.samples[k]);
        kept_clocks.push_back(v.clocks[k]);
      }
    int64_t n_dropped = static_cast<int64_t>(v.samples.size() - kept.size());
    if (!clocks_.available()) {
      v.notes.push_back(clocks_.unavailable_reason() + ": SM clock not checked, no samples dropped");
    } else if (kept.size() * 2 < v.samples.size()) {
      // A sustained clock below the maximum (a power or thermal limit under this load) is the
      // operating point, not a transient: dropping most samples would bias the result.
      v.notes.push_back("the SM clock stayed more than " + format_number(bench.max_clock_sag * 100) +
                        "% under its maximum " + format_number(max_mhz) + " MHz in most samples: all kept");
      kept = v.samples;
      kept_clocks = v.clocks;
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
    t.launches_per_sample = launches_;
    t.l2_flushed = bench.flush_l2 && launches_ == 1;
    if (bench.flush_l2 && launches_ > 1) v.notes.push_back("L2 flushed before each sample, not each launch");
    t.stop_reason = criteria[i].reason().empty()
                        ? (wall_seconds() - begin >= bench.timeout_s ? "timeout" : "max samples")
                        : criteria[i].reason();
    t.sm_clock_mhz = summarize(kept_clocks).median;
    t.cupti_span_us = v.span_us;
    if (escaped_timed_region(t))
      v.notes.push_back("the event-timed median " + format_number(t.median_us) + " us is " +
                        format_number((1 - t.median_us / t.cupti_span_us) * 100) + "% below the GPU time " +
                        format_number(t.cupti_span_us) +
                        " us CUPTI traced for one call (its activities' union): work escaped the timed region");
    t.notes = join_notes(v.notes);
    out.push_back(t);
  }
  return out;
}

WallClockFinding SizeTimer::wall_clock_check(const std::vector<TimingStats>& stats, SizeTiming& st) {
  using Kind = WallClockFinding::Kind;
  if (variants_.size() < 2) return {};
  set_phase("wall-clock cross-check at size " + job_.raw.size_labels[size_]);
  const size_t per_set = std::max<size_t>(1, variants_.front().slots.front()->allocated_bytes());
  const size_t calls = wall_clock_calls(stats[0].median_us, stats[1].median_us, per_set, kSlotBudgetBytes,
                                        kMaxWallClockCalls, kWallClockTargetUs);
  for (auto& v : variants_)
    while (v.batch.size() < calls) add_slot(v, v.batch, v.batch_ids, 100000);
  std::vector<double> best(variants_.size(), HUGE_VAL), fill_us(variants_.size(), HUGE_VAL);
  const uint64_t seed0 = (job_.raw.seed ^ kTimingSeedSalt) + (uint64_t{size_} << 32) + (uint64_t{1} << 31);
  // Returns what differed in the batch's outputs, or "" when they agree.
  auto run_batch = [&](int b) -> std::string {
    const uint64_t seed = seed0 + static_cast<uint64_t>(b) * kMaxSlots;
    for (size_t n = 0; n < variants_.size(); ++n) {
      const size_t i = b % 2 == 0 ? n : variants_.size() - 1 - n;
      Timed& v = variants_[i];
      // The inputs are filled just before the clock starts. A server that computed on them while
      // they were being filled (they are mapped into it) would slow the fill down, so the fills of
      // the two variants are compared too.
      const double f0 = wall_seconds();
      fill(v.batch, seed);
      cuda_check(cudaDeviceSynchronize(), "filling inputs");
      const double t0 = wall_seconds();
      ask(v, slot_request(Op::batch, v.batch_ids), "run a batch", "a batch call failed");
      const double t1 = wall_seconds();
      best[i] = std::min(best[i], (t1 - t0) * 1e6 / static_cast<double>(calls));
      fill_us[i] = std::min(fill_us[i], (t0 - f0) * 1e6);
    }
    const auto [k, differ] = compare(variants_[0].batch, variants_[1].batch, calls);
    if (!differ.empty())
      return "call " + std::to_string(k + 1) + " of a wall-clock batch at size " + job_.raw.size_labels[size_] +
             ", on fresh inputs: " + differ;
    return "";
  };
  auto evidence = [&] {
    WallClockEvidence e;
    e.size_label = job_.raw.size_labels[size_];
    e.calls = static_cast<int>(calls);
    e.baseline_event_us = stats[0].median_us;
    e.candidate_event_us = stats[1].median_us;
    e.baseline_wall_us = best[0];
    e.candidate_wall_us = best[1];
    return e;
  };
  int batches = 0;
  for (; batches < reps_.wall_clock_batches; ++batches)
    if (std::string wrong = run_batch(batches); !wrong.empty()) return {Kind::wrong_output, wrong};
  // A disagreement is confirmed before it rejects: more batches, each a fresh chance for the
  // clock to see an honest candidate's floor (the best batch counts). Work hidden outside the
  // timed region is in every batch, so it stays.
  while (batches < kMaxWallClockBatches && !wall_clock_disagreement(evidence()).empty())
    if (std::string wrong = run_batch(batches++); !wrong.empty()) return {Kind::wrong_output, wrong};
  // Still apart: the batch's fixed cost, measured on the original's server, before it rejects
  // (wall_clock_bound.h says when the original's own overhead hides it).
  double fixed_us = 0;
  if (calls >= 2 && !wall_clock_disagreement(evidence()).empty()) {
    Timed& original = variants_[0];
    double one_call_us = HUGE_VAL;
    for (int k = 0; k < kFixedCostBatches; ++k) {
      fill(original.batch, seed0 + static_cast<uint64_t>(kMaxWallClockBatches + k) * kMaxSlots);
      cuda_check(cudaDeviceSynchronize(), "filling inputs");
      const double t0 = wall_seconds();
      ask(original, slot_request(Op::batch, {original.batch_ids.front()}), "run a batch", "a batch call failed");
      one_call_us = std::min(one_call_us, (wall_seconds() - t0) * 1e6);
    }
    fixed_us = batch_fixed_cost_us(one_call_us, best[0] * static_cast<double>(calls), static_cast<int>(calls));
    spdlog::info("{}: the batch's fixed cost, measured on the original's server: {:.1f} us ({} calls a batch)",
                 job_.raw.size_labels[size_], fixed_us, calls);
  }
  const auto evidence_with_fixed_cost = [&] {
    WallClockEvidence e = evidence();
    e.baseline_batch_fixed_us = fixed_us;
    return e;
  };
  if (fill_us[1] > kFillSlowdown * fill_us[0] + kFillSlackUs) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "while the judge filled the candidate's inputs for the wall-clock batch at %s, something else used "
                  "the GPU: the fill took %.0f us against %.0f us for the original's (work started before the call, "
                  "outside any timed region)",
                  job_.raw.size_labels[size_].c_str(), fill_us[1], fill_us[0]);
    return {Kind::disagrees, buf};
  }
  const WallClockEvidence e = evidence_with_fixed_cost();
  st.wall_clock_calls = e.calls;
  st.baseline_wall_us = e.baseline_wall_us;
  st.candidate_wall_us = e.candidate_wall_us;
  spdlog::info("{}: wall clock over {} calls, best of {} batches: original {:.2f} us, candidate {:.2f} us per call",
               e.size_label, calls, batches, e.baseline_wall_us, e.candidate_wall_us);
  std::string disagreement = wall_clock_disagreement(e);
  if (disagreement.empty()) return {};
  // Work on another stream than the caller's is what the clock is there to catch; work all on the
  // caller's stream (its traced profile: capturable) only cost host time the samples did not see.
  if (variants_[1].capturable) return {Kind::clock_rules, wall_clock_ruling(e).note};
  return {Kind::disagrees, std::move(disagreement)};
}

}  // namespace

void run_timing(const DecodedJob& job, const Servers& servers, EvalResult& result, PhaseTimes& phases) {
  ClockMonitor clocks(job.raw.device);
  if (!clocks.available())
    spdlog::warn("{}: timing samples are not checked for clock sag", clocks.unavailable_reason());
  const bool candidate = servers.candidate != nullptr;
  // A screening times only the first size sets (the main size); the full measurement times all.
  const size_t timed = job.raw.timed_sizes > 0 ? std::min(job.size_count(), static_cast<size_t>(job.raw.timed_sizes))
                                               : job.size_count();
  for (size_t s = 0; s < timed; ++s) {
    const std::string& label = job.raw.size_labels[s];
    set_phase("timing at size " + label);
    SizeTimer timer(job, servers, s, clocks);
    std::string failure;
    SizeTiming st;
    const std::vector<TimingStats> stats = timer.measure(failure, st.checked_samples, result.timing_part_s);
    if (!failure.empty()) {
      result.verdict = Verdict::wrong_result;
      result.reason = "the outputs of a " + failure;
      return;
    }
    st.size_label = label;
    st.baseline = stats[0];
    st.bytes_moved = job.raw.bytes.empty() ? 0 : job.raw.bytes[s];
    st.flops = job.raw.flops.empty() ? 0 : job.raw.flops[s];
    st.floor_us = roofline_floor_us(st.bytes_moved, st.flops, job.raw.copy_bandwidth_gbps, job.raw.fp32_tflops);
    st.baseline_pct_of_floor = percent_of_floor(st.floor_us, st.baseline.median_us);
    if (candidate) {
      st.candidate = stats[1];
      st.speedup = st.candidate.median_us > 0 ? st.baseline.median_us / st.candidate.median_us : 0;
      st.significant =
          speedup_is_significant({st.baseline.median_us, st.baseline.q1_us, st.baseline.q3_us, st.baseline.noise},
                                 {st.candidate.median_us, st.candidate.q1_us, st.candidate.q3_us, st.candidate.noise});
      st.candidate_pct_of_floor = percent_of_floor(st.floor_us, st.candidate.median_us);
      spdlog::info("{}: original {:.2f} us, candidate {:.2f} us, speedup {}{} ({} samples checked)", label,
                   st.baseline.median_us, st.candidate.median_us, format_speedup(st.speedup),
                   st.significant ? " (significant)" : "", st.checked_samples);
      WallClockFinding wall;
      if (job.raw.wall_clock_check) {
        phases.begin("wall-clock check");
        wall = timer.wall_clock_check(stats, st);
        phases.begin("timing");
      }
      result.timings.push_back(st);
      switch (wall.kind) {
        case WallClockFinding::Kind::agrees: break;
        case WallClockFinding::Kind::wrong_output:
          result.verdict = Verdict::wrong_result;
          result.reason = "the outputs of " + wall.message;
          return;
        case WallClockFinding::Kind::disagrees:
          result.verdict = Verdict::rejected;
          result.reason = wall.message;
          return;
        case WallClockFinding::Kind::clock_rules: {
          SizeTiming& ruled = result.timings.back();
          const ClockRuling r = wall_clock_ruling({label, static_cast<int>(ruled.wall_clock_calls),
                                                   ruled.baseline.median_us, ruled.candidate.median_us,
                                                   ruled.baseline_wall_us, ruled.candidate_wall_us});
          ruled.speedup = r.speedup;
          ruled.significant = r.significant;
          ruled.wall_clock_rules = true;
          ruled.candidate.notes += (ruled.candidate.notes.empty() ? "" : "; ") + r.note;
          spdlog::info("{}: {}", label, r.note);
          break;
        }
      }
    } else {
      spdlog::info("{}: {:.2f} us median over {} samples (noise {:.2f}%, {})", label, st.baseline.median_us,
                   st.baseline.samples, st.baseline.noise * 100, st.baseline.stop_reason);
      result.timings.push_back(st);
    }
    if (const VerificationOutcome guards = timer.check_guards_once(); guards.failed()) {
      result.verdict = guards.verdict;
      result.reason = guards.reason;
      return;
    }
  }
  if (!candidate) {
    result.verdict = Verdict::pending;
    result.reason = "timed the original at " + std::to_string(timed) + " size sets";
    return;
  }
  const SpeedupDecision decision = decide_speedup(result.timings, job.raw.min_speedup);
  result.speedup = decision.speedup;
  result.verdict = decision.accepted() ? Verdict::accepted : Verdict::not_faster;
  result.reason = decision.reason();
}

}  // namespace kb::judge
