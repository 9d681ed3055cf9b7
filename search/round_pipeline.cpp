#include "search/round_pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "search/content_hash.h"

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

struct EvalItem {
  size_t job;
  size_t slot;
  CompiledVariant compiled;
};

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

std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            const std::vector<CandidateRecord>& candidates,
                                            const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices,
                                            const RoundSettings& settings, const RoundHooks& hooks) {
  CandidateFeed feed(candidates);
  return run_candidates(spec, baseline, feed, evaluators, device_indices, settings, hooks);
}

std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            CandidateFeed& feed, const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices,
                                            const RoundSettings& settings, const RoundHooks& hooks) {
  // One entry per candidate taken from the feed, at its index: the candidate, then its repairs.
  std::deque<std::vector<CandidateRecord>> slots;
  std::mutex mutex;  // guards slots, queue, compiling, gpu_wait_s and the on_finished calls
  std::condition_variable ready;
  std::deque<EvalItem> queue;
  size_t compiling = 0;
  double gpu_wait_s = 0;

  auto finished = [&](const CandidateRecord& r) {
    if (hooks.on_finished) hooks.on_finished(r);
  };

  auto compile_worker = [&] {
    for (auto taken = feed.take(); taken; taken = feed.take()) {
      const size_t job = taken->first;
      const CandidateRecord& fed = taken->second;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (slots.size() <= job) slots.resize(job + 1);
      }
      CandidateRecord record = fed;
      for (int64_t attempt = 0;; ++attempt) {
        if (hooks.reserve && !hooks.reserve()) break;
        CompiledVariant compiled;
        try {
          compiled = evaluators.front()->compile(spec, record.variant);
        } catch (const std::exception& e) {
          compiled.ok = false;
          record.eval.verdict = Verdict::infra_error;
          record.eval.reason = std::string("the compiler could not be run: ") + e.what();
          std::lock_guard<std::mutex> lock(mutex);
          slots[job].push_back(record);
          finished(record);
          break;
        }
        if (compiled.ok) {
          std::lock_guard<std::mutex> lock(mutex);
          record.eval.compile_s = compiled.compile_s;
          record.compile_cached = compiled.from_cache;
          slots[job].push_back(record);
          queue.push_back(EvalItem{job, slots[job].size() - 1, std::move(compiled)});
          ready.notify_one();
          break;
        }
        record.eval.verdict = Verdict::compile_error;
        record.eval.reason = "does not compile: " + first_error_line(compiled.log);
        record.eval.compile_log = compiled.log;
        record.eval.compile_s = compiled.compile_s;
        {
          std::lock_guard<std::mutex> lock(mutex);
          slots[job].push_back(record);
          finished(record);
        }
        if (attempt >= settings.repair_attempts || !hooks.repair) break;
        std::optional<Variant> fixed;
        try {
          fixed = hooks.repair(record);
        } catch (const std::exception& e) {
          spdlog::warn("{}: repair failed: {}", record.id, e.what());
        }
        if (!fixed) break;
        CandidateRecord child = fed;
        child.id = record.id + "-fix" + std::to_string(attempt + 1);
        child.parent_id = record.id;
        child.variant = *fixed;
        child.variant.label = child.id;
        child.variant_hash = variant_hash(child.variant);
        record = child;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    --compiling;
    ready.notify_all();
  };

  // Screening: the screened candidates that await their full evaluation.
  struct Contender {
    EvalItem item;
    ScreenReading reading;
    EvalResult screening;
  };
  std::vector<Contender> contenders;
  size_t screening_now = 0;  // screenings in flight (each may add a contender)
  ScreeningBar* bar = settings.screening_bar;
  ScreeningEconomy* economy = bar ? settings.screening_economy : nullptr;
  EvalOptions screen_options;
  screen_options.screening = true;

  auto evaluate = [&](size_t e, const CompiledVariant& compiled, const EvalOptions& options) {
    EvalResult result;
    try {
      result = evaluators[e]->evaluate(spec, baseline, compiled, options);
    } catch (const std::exception& ex) {
      result.verdict = Verdict::infra_error;
      result.reason = std::string("the evaluator failed: ") + ex.what();
    }
    return result;
  };
  // A full evaluation, counted in the screening economy (what a screening would spare).
  auto evaluate_fully = [&](size_t e, const CompiledVariant& compiled) {
    EvalResult full = evaluate(e, compiled, settings.eval_options);
    if (economy) economy->record_full(full.run_s);
    return full;
  };
  auto record_of = [&](const EvalItem& item) {
    std::lock_guard<std::mutex> lock(mutex);
    return slots[item.job][item.slot];
  };
  auto store = [&](const EvalItem& item, const CandidateRecord& record) {
    std::lock_guard<std::mutex> lock(mutex);
    slots[item.job][item.slot] = record;
    finished(record);
  };
  auto screened_out = [&](CandidateRecord& record, const CompiledVariant& compiled, EvalResult screening,
                          const std::string& why) {
    apply_evaluation(record, compiled, std::move(screening));
    record.eval.verdict = Verdict::screened_out;
    record.eval.reason = why;
  };

  // Screens one candidate: a failure or a clear loss ends it here, a contender waits its turn.
  auto screen = [&](size_t e, EvalItem item) {
    CandidateRecord record = record_of(item);
    record.device_index = device_indices[e];
    EvalResult result = evaluate(e, item.compiled, screen_options);
    record.screening.ran = true;
    record.screening.run_s = result.run_s;
    record.screening.phase_s = result.phase_s;
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
    if (std::string why = bar->clearly_slower(reading); !why.empty()) {
      if (economy) economy->record_screening(record.screening.run_s, true);
      screened_out(record, item.compiled, std::move(result), why);
      store(item, record);
      return;
    }
    if (economy) economy->record_screening(record.screening.run_s, false);
    std::lock_guard<std::mutex> lock(mutex);
    slots[item.job][item.slot] = record;
    contenders.push_back(Contender{std::move(item), reading, std::move(result)});
  };

  // The full evaluation, after the bar is checked again: a better candidate confirmed since this
  // one's screening may have left it clearly behind.
  auto confirm = [&](size_t e, Contender c) {
    CandidateRecord record = record_of(c.item);
    record.device_index = device_indices[e];
    if (std::string why = bar->clearly_slower(c.reading); !why.empty()) {
      screened_out(record, c.item.compiled, std::move(c.screening), why);
      store(c.item, record);
      return;
    }
    const ScreeningRecord screening = record.screening;
    apply_evaluation(record, c.item.compiled, evaluate_fully(e, c.item.compiled));
    record.screening = screening;
    if (record.verdict() == Verdict::accepted) bar->confirm(record.id, c.reading);
    store(c.item, record);
  };

  auto eval_worker = [&](size_t e) {
    for (;;) {
      enum class Work { screening, confirmation, full } work;
      EvalItem item;
      Contender contender;
      {
        std::unique_lock<std::mutex> lock(mutex);
        // Time this GPU waits for work: a compile, or the proposer's next reply.
        const auto waiting = std::chrono::steady_clock::now();
        ready.wait(lock, [&] {
          return !queue.empty() || !contenders.empty() || (compiling == 0 && screening_now == 0);
        });
        gpu_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting).count();
        if (!queue.empty()) {
          item = std::move(queue.front());
          queue.pop_front();
          work = bar && (!economy || economy->screen_next()) ? Work::screening : Work::full;
          if (work == Work::screening) ++screening_now;
        } else if (!contenders.empty()) {
          auto best = std::max_element(contenders.begin(), contenders.end(), [](const Contender& a, const Contender& b) {
            return a.reading.speedup < b.reading.speedup;
          });
          contender = std::move(*best);
          contenders.erase(best);
          work = Work::confirmation;
        } else {
          return;
        }
      }
      if (work == Work::screening) {
        screen(e, std::move(item));
        std::lock_guard<std::mutex> lock(mutex);
        --screening_now;
        ready.notify_all();
      } else if (work == Work::confirmation) {
        confirm(e, std::move(contender));
      } else {
        CandidateRecord record = record_of(item);
        EvalResult full = evaluate_fully(e, item.compiled);
        // Not screened (it did not pay): an accepted candidate still raises the bar the screened
        // ones are held to, by its full measurement at the main size.
        if (bar && full.verdict == Verdict::accepted) bar->confirm(record.id, screen_reading(full));
        apply_evaluation(record, item.compiled, std::move(full));
        record.device_index = device_indices[e];
        store(item, record);
      }
    }
  };

  size_t jobs = static_cast<size_t>(std::max<int64_t>(1, settings.compile_jobs));
  // A closed feed's size is known: no more compile threads than candidates.
  if (feed.closed()) jobs = std::min(jobs, std::max<size_t>(1, feed.size()));
  compiling = jobs;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs; ++i) threads.emplace_back(compile_worker);
  for (size_t e = 0; e < evaluators.size(); ++e) threads.emplace_back(eval_worker, e);
  for (auto& t : threads) t.join();
  if (settings.gpu_wait_s) *settings.gpu_wait_s += gpu_wait_s;

  std::vector<CandidateRecord> out;
  for (auto& s : slots)
    for (auto& r : s) out.push_back(std::move(r));
  return out;
}

}  // namespace kb::search
