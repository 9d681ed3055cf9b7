#include "search/engine/round_pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "search/archive/content_hash.h"
#include "search/engine/compile_priority.h"

namespace kb::search {
namespace {

// The first line that says "error", for a one-line reason.
std::string first_error_line(const std::string& log) {
  size_t pos = 0;
  while (pos < log.size()) {
    size_t end = log.find('\n', pos);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(pos, end - pos);
    if (line.find("error") != std::string::npos) return line.substr(0, 240);
    pos = end + 1;
  }
  return log.substr(0, std::min<size_t>(log.size(), 240));
}

}  // namespace

void apply_evaluation(CandidateRecord& r, const CompiledVariant& compiled, EvalResult result) {
  if (result.compile_log.empty()) result.compile_log = compiled.log;
  if (result.compile_s == 0) result.compile_s = compiled.compile_s;
  // Compiler facts (registers, spills) are known even when no hardware counters were collected.
  if (result.candidate_metrics.registers_per_thread == 0 && compiled.compiler_report.registers_per_thread > 0) {
    auto values = result.candidate_metrics.values;
    auto status = result.candidate_metrics.status;
    result.candidate_metrics = compiled.compiler_report;
    result.candidate_metrics.values.insert(values.begin(), values.end());
    if (!values.empty()) result.candidate_metrics.status = status;
  }
  r.compile_cached = compiled.from_cache;
  r.eval = std::move(result);
}

namespace {

// One round's candidates from the feed to their records: compile threads take candidates from the
// feed (repairing a failed compile when allowed) and queue what compiles; one GPU worker per
// evaluator screens, confirms or fully evaluates what is queued. Every method that touches the
// shared state below takes `mutex_`.
class RoundPipeline {
 public:
  RoundPipeline(const config::KernelSpec& spec, const CompiledVariant& baseline, CandidateFeed& feed,
                const std::vector<Evaluator*>& evaluators, const std::vector<int64_t>& device_indices,
                const RoundSettings& settings, const RoundHooks& hooks)
      : spec_(spec),
        baseline_(baseline),
        feed_(feed),
        evaluators_(evaluators),
        device_indices_(device_indices),
        settings_(settings),
        hooks_(hooks),
        bar_(settings.screening_bar),
        economy_(bar_ ? settings.screening_economy : nullptr),
        cost_(settings.cost) {
    screen_options_.screening = true;
  }

  std::vector<CandidateRecord> run() {
    size_t jobs = static_cast<size_t>(std::max<int64_t>(1, settings_.compile_jobs));
    // A closed feed's size is known: no more compile threads than candidates.
    if (feed_.closed()) jobs = std::min(jobs, std::max<size_t>(1, feed_.size()));
    compiling_ = jobs;
    std::vector<std::thread> threads;
    for (size_t i = 0; i < jobs; ++i) threads.emplace_back([this] { compile_from_feed(); });
    for (size_t e = 0; e < evaluators_.size(); ++e) threads.emplace_back([this, e] { evaluate_on_gpu(e); });
    for (auto& t : threads) t.join();
    if (settings_.gpu_wait_s) *settings_.gpu_wait_s += gpu_wait_s_;
    return finished_in_feed_order();
  }

 private:
  // A compiled candidate waiting for a GPU: its record is slots_[job][slot].
  struct EvalItem {
    size_t job = 0;
    size_t slot = 0;
    CompiledVariant compiled;
  };
  // A candidate that passed its screening and awaits its full evaluation.
  struct Contender {
    EvalItem item;
    ScreenReading reading;
    EvalResult screening;
  };
  enum class Work { screening, confirmation, full, none };

  // --- compiling (the compile threads) ---

  void compile_from_feed() {
    // Below the GPU workers' judges and servers (nvcc inherits it): on a busy host, a compile
    // must not delay a sample's launch or the wall-clock check's calls, and the GPU waits on
    // those, while a compile only has to be done before a GPU is free.
    lower_this_thread_priority(kRoundCompileNice);
    for (auto taken = feed_.take(); taken; taken = feed_.take()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (slots_.size() <= taken->first) slots_.resize(taken->first + 1);
      }
      compile_with_repairs(taken->first, taken->second);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --compiling_;
    ready_.notify_all();
  }

  // Compiles the candidate fed as `job`; a compile error is recorded and, while repairs are left,
  // the repaired child is compiled next (in the same slot list, right after its parent).
  void compile_with_repairs(size_t job, const CandidateRecord& fed) {
    CandidateRecord record = fed;
    for (int64_t attempt = 0;; ++attempt) {
      if (hooks_.reserve && !hooks_.reserve()) return;
      CompiledVariant compiled;
      try {
        compiled = evaluators_.front()->compile(spec_, record.variant);
      } catch (const std::exception& e) {
        record.eval.verdict = Verdict::infra_error;
        record.eval.reason = std::string("the compiler could not be run: ") + e.what();
        finish_in_slot(job, record);
        return;
      }
      if (compiled.ok) {
        queue_for_gpu(job, record, std::move(compiled));
        return;
      }
      record_compile_error(record, compiled);
      finish_in_slot(job, record);
      if (attempt >= settings_.repair_attempts || !hooks_.repair) return;
      std::optional<Variant> fixed = repaired(record);
      if (!fixed) return;
      record = repair_child(fed, record, std::move(*fixed), attempt + 1);
    }
  }

  static void record_compile_error(CandidateRecord& record, const CompiledVariant& compiled) {
    record.eval.verdict = Verdict::compile_error;
    record.eval.reason = compiled.failure_reason.empty() ? "does not compile: " + first_error_line(compiled.log)
                                                         : compiled.failure_reason;
    record.eval.compile_log = compiled.log;
    record.eval.compile_s = compiled.compile_s;
  }

  std::optional<Variant> repaired(const CandidateRecord& failed) const {
    try {
      return hooks_.repair(failed);
    } catch (const std::exception& e) {
      spdlog::warn("{}: repair failed: {}", failed.id, e.what());
      return std::nullopt;
    }
  }

  static CandidateRecord repair_child(const CandidateRecord& fed, const CandidateRecord& failed, Variant fixed,
                                      int64_t repair_number) {
    CandidateRecord child = fed;
    child.id = failed.id + "-fix" + std::to_string(repair_number);
    child.parent_id = failed.id;
    child.variant = std::move(fixed);
    child.variant.label = child.id;
    child.variant_hash = variant_hash(child.variant);
    return child;
  }

  void queue_for_gpu(size_t job, CandidateRecord record, CompiledVariant compiled) {
    std::lock_guard<std::mutex> lock(mutex_);
    record.eval.compile_s = compiled.compile_s;
    record.compile_cached = compiled.from_cache;
    slots_[job].push_back(std::move(record));
    queue_.push_back(EvalItem{job, slots_[job].size() - 1, std::move(compiled)});
    ready_.notify_one();
  }

  // A candidate finished without reaching a GPU (compile error, no compiler).
  void finish_in_slot(size_t job, const CandidateRecord& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[job].push_back(record);
    if (hooks_.on_finished) hooks_.on_finished(record);
  }

  // --- evaluating (one worker per GPU) ---

  void evaluate_on_gpu(size_t e) {
    for (;;) {
      EvalItem item;
      Contender contender;
      const Work work = next_work(item, contender);
      switch (work) {
        case Work::screening:
          screen(e, std::move(item));
          {
            std::lock_guard<std::mutex> lock(mutex_);
            --screening_now_;
            ready_.notify_all();
          }
          break;
        case Work::confirmation: confirm(e, std::move(contender)); break;
        case Work::full: evaluate_unscreened(e, item); break;
        case Work::none: return;
      }
    }
  }

  // Waits for work: a compiled candidate first (screened while screening pays), else the best
  // screened contender; none once every compile and screening is done and nothing is left.
  Work next_work(EvalItem& item, Contender& contender) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      // Time this GPU waits for work: a compile, or the proposer's next reply.
      const auto waiting = std::chrono::steady_clock::now();
      ready_.wait(lock,
                  [&] { return !queue_.empty() || !contenders_.empty() || (compiling_ == 0 && screening_now_ == 0); });
      gpu_wait_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting).count();
      if (!queue_.empty()) {
        item = std::move(queue_.front());
        queue_.pop_front();
        const bool screening = bar_ && (!economy_ || economy_->screen_next());
        // A screening may lead to a full evaluation: both must fit.
        const double need = !cost_ ? 0 : screening ? cost_->screening_s() + cost_->full_s() : cost_->full_s();
        if (!may_start(need)) {
          leave_unevaluated(item.job, item.slot, need);
          continue;
        }
        if (screening) {
          ++screening_now_;
          return Work::screening;
        }
        return Work::full;
      }
      if (!contenders_.empty()) {
        auto best = std::max_element(contenders_.begin(), contenders_.end(),
                                     [](const Contender& a, const Contender& b) {
                                       return a.reading.speedup < b.reading.speedup;
                                     });
        contender = std::move(*best);
        contenders_.erase(best);
        const double need = cost_ ? cost_->full_s() : 0;
        if (!may_start(need)) {
          leave_unevaluated(contender.item.job, contender.item.slot, need);
          continue;
        }
        return Work::confirmation;
      }
      return Work::none;
    }
  }

  bool may_start(double seconds) const { return !hooks_.may_start || hooks_.may_start(seconds); }

  // With the mutex held: a compiled candidate the wall-time budget has no room for. It has no
  // verdict, so it stays out of the records (and of the archive: a later run may measure it).
  void leave_unevaluated(size_t job, size_t slot, double seconds) {
    unevaluated_.insert({job, slot});
    if (hooks_.on_unevaluated) hooks_.on_unevaluated(slots_[job][slot], seconds);
  }

  EvalResult evaluate(size_t e, const CompiledVariant& compiled, const EvalOptions& options) {
    EvalResult result;
    try {
      result = evaluators_[e]->evaluate(spec_, baseline_, compiled, options);
    } catch (const std::exception& ex) {
      result.verdict = Verdict::infra_error;
      result.reason = std::string("the evaluator failed: ") + ex.what();
    }
    return result;
  }

  // A full evaluation, counted in the screening economy (what a screening would spare).
  EvalResult evaluate_fully(size_t e, const CompiledVariant& compiled) {
    EvalResult full = evaluate(e, compiled, settings_.eval_options);
    const double cost_s = own_seconds(full);
    if (economy_) economy_->record_full(cost_s);
    if (cost_) cost_->record_full(cost_s);
    return full;
  }

  // Screens one candidate: a failure or a clear loss ends it here, a contender waits its turn.
  void screen(size_t e, EvalItem item) {
    CandidateRecord record = record_of(item);
    record.device_index = device_indices_[e];
    EvalResult result = evaluate(e, item.compiled, screen_options_);
    const double cost_s = own_seconds(result);
    if (cost_) cost_->record_screening(cost_s);
    record.screening.ran = true;
    record.screening.run_s = result.run_s;
    record.screening.phase_s = result.phase_s;
    record.screening.pass_s = result.verification.pass_s;
    record.screening.timing_part_s = result.timing_part_s;
    // Pending is a passed screening; an evaluator that judged it fully (accepted, not_faster)
    // passed it too, and is still only screened: its verdict waits for the full evaluation.
    record.screening.passed = result.verdict == Verdict::pending || verdict_is_correct(result.verdict);
    if (!record.screening.passed) {
      // Not in the economy's account: a candidate that fails its screening would fail its full
      // evaluation's verification about as fast, so screening it neither cost nor spared much.
      apply_evaluation(record, item.compiled, std::move(result));
      store(item, record);
      return;
    }
    const ScreenReading reading = screen_reading(result);
    record.screening.speedup = reading.speedup;
    record.screening.noise = reading.noise;
    if (std::string why = bar_->clearly_slower(reading); !why.empty()) {
      if (economy_) economy_->record_screening(cost_s, true);
      mark_screened_out(record, item.compiled, std::move(result), why);
      store(item, record);
      return;
    }
    if (economy_) economy_->record_screening(cost_s, false);
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[item.job][item.slot] = record;
    contenders_.push_back(Contender{std::move(item), reading, std::move(result)});
  }

  // The full evaluation, after the bar is checked again: a better candidate confirmed since this
  // one's screening may have left it clearly behind.
  void confirm(size_t e, Contender c) {
    CandidateRecord record = record_of(c.item);
    record.device_index = device_indices_[e];
    if (std::string why = bar_->clearly_slower(c.reading); !why.empty()) {
      mark_screened_out(record, c.item.compiled, std::move(c.screening), why);
      store(c.item, record);
      return;
    }
    const ScreeningRecord screening = record.screening;
    apply_evaluation(record, c.item.compiled, evaluate_fully(e, c.item.compiled));
    record.screening = screening;
    if (record.verdict() == Verdict::accepted) bar_->confirm(record.id, c.reading);
    store(c.item, record);
  }

  // Not screened (it did not pay): an accepted candidate still raises the bar the screened ones
  // are held to, by its full measurement at the main size.
  void evaluate_unscreened(size_t e, const EvalItem& item) {
    CandidateRecord record = record_of(item);
    EvalResult full = evaluate_fully(e, item.compiled);
    if (bar_ && full.verdict == Verdict::accepted) bar_->confirm(record.id, screen_reading(full));
    apply_evaluation(record, item.compiled, std::move(full));
    record.device_index = device_indices_[e];
    store(item, record);
  }

  static void mark_screened_out(CandidateRecord& record, const CompiledVariant& compiled, EvalResult screening,
                                const std::string& why) {
    apply_evaluation(record, compiled, std::move(screening));
    record.eval.verdict = Verdict::screened_out;
    record.eval.reason = why;
  }

  CandidateRecord record_of(const EvalItem& item) {
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_[item.job][item.slot];
  }

  void store(const EvalItem& item, const CandidateRecord& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[item.job][item.slot] = record;
    if (hooks_.on_finished) hooks_.on_finished(record);
  }

  std::vector<CandidateRecord> finished_in_feed_order() {
    std::vector<CandidateRecord> out;
    for (size_t job = 0; job < slots_.size(); ++job)
      for (size_t slot = 0; slot < slots_[job].size(); ++slot)
        if (!unevaluated_.count({job, slot})) out.push_back(std::move(slots_[job][slot]));
    return out;
  }

  const config::KernelSpec& spec_;
  const CompiledVariant& baseline_;
  CandidateFeed& feed_;
  const std::vector<Evaluator*>& evaluators_;
  const std::vector<int64_t>& device_indices_;
  const RoundSettings& settings_;
  const RoundHooks& hooks_;
  ScreeningBar* const bar_;
  ScreeningEconomy* const economy_;
  CandidateCost* const cost_;
  EvalOptions screen_options_;

  // Guards everything below and serializes the on_finished calls.
  std::mutex mutex_;
  std::condition_variable ready_;
  // One entry per candidate taken from the feed, at its index: the candidate, then its repairs.
  std::deque<std::vector<CandidateRecord>> slots_;
  std::deque<EvalItem> queue_;                       // compiled, waiting for a GPU
  std::vector<Contender> contenders_;                // screened, waiting for their full evaluation
  std::set<std::pair<size_t, size_t>> unevaluated_;  // (job, slot): compiled, no time left to evaluate
  size_t compiling_ = 0;                             // compile threads still taking from the feed
  size_t screening_now_ = 0;                         // screenings in flight (each may add a contender)
  double gpu_wait_s_ = 0;
};

}  // namespace

std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            const std::vector<CandidateRecord>& candidates,
                                            const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices, const RoundSettings& settings,
                                            const RoundHooks& hooks) {
  CandidateFeed feed(candidates);
  return run_candidates(spec, baseline, feed, evaluators, device_indices, settings, hooks);
}

std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            CandidateFeed& feed, const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices, const RoundSettings& settings,
                                            const RoundHooks& hooks) {
  return RoundPipeline(spec, baseline, feed, evaluators, device_indices, settings, hooks).run();
}

}  // namespace kb::search
