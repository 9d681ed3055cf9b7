#include "search/candidate_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
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
  r.verdict = result.verdict;
  r.reason = result.reason;
  r.speedup = verdict_is_correct(result.verdict) ? result.speedup : 0;
  r.median_us = result.timings.empty() ? 0 : result.timings.front().candidate.median_us;
  r.compile_s = compiled.compile_s;
  r.compile_cached = compiled.from_cache;
  r.eval = std::move(result);
}

std::vector<CandidateRecord> run_candidates(const config::KernelSpec& spec, const CompiledVariant& baseline,
                                            const std::vector<CandidateRecord>& candidates,
                                            const std::vector<Evaluator*>& evaluators,
                                            const std::vector<int64_t>& device_indices,
                                            const RunnerSettings& settings, const RunnerHooks& hooks) {
  std::vector<std::vector<CandidateRecord>> slots(candidates.size());
  std::mutex mutex;  // guards slots, queue, compiling and the on_finished calls
  std::condition_variable ready;
  std::deque<EvalItem> queue;
  size_t compiling = 0;
  std::atomic<size_t> next{0};

  auto finished = [&](const CandidateRecord& r) {
    if (hooks.on_finished) hooks.on_finished(r);
  };

  auto compile_worker = [&] {
    for (size_t job = next++; job < candidates.size(); job = next++) {
      CandidateRecord record = candidates[job];
      for (int64_t attempt = 0;; ++attempt) {
        if (hooks.reserve && !hooks.reserve()) break;
        CompiledVariant compiled;
        try {
          compiled = evaluators.front()->compile(spec, record.variant);
        } catch (const std::exception& e) {
          compiled.ok = false;
          record.verdict = Verdict::infra_error;
          record.reason = std::string("the compiler could not be run: ") + e.what();
          std::lock_guard<std::mutex> lock(mutex);
          slots[job].push_back(record);
          finished(record);
          break;
        }
        if (compiled.ok) {
          std::lock_guard<std::mutex> lock(mutex);
          record.compile_s = compiled.compile_s;
          record.compile_cached = compiled.from_cache;
          slots[job].push_back(record);
          queue.push_back(EvalItem{job, slots[job].size() - 1, std::move(compiled)});
          ready.notify_one();
          break;
        }
        record.verdict = Verdict::compile_error;
        record.reason = "does not compile: " + first_error_line(compiled.log);
        record.eval.compile_log = compiled.log;
        record.eval.compile_s = compiled.compile_s;
        record.eval.verdict = Verdict::compile_error;
        record.compile_s = compiled.compile_s;
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
        CandidateRecord child = candidates[job];
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

  auto eval_worker = [&](size_t e) {
    for (;;) {
      EvalItem item;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [&] { return !queue.empty() || compiling == 0; });
        if (queue.empty()) return;
        item = std::move(queue.front());
        queue.pop_front();
      }
      CandidateRecord record;
      {
        std::lock_guard<std::mutex> lock(mutex);
        record = slots[item.job][item.slot];
      }
      EvalResult result;
      try {
        result = evaluators[e]->evaluate(spec, baseline, item.compiled, settings.eval_options);
      } catch (const std::exception& ex) {
        result.verdict = Verdict::infra_error;
        result.reason = std::string("the evaluator failed: ") + ex.what();
      }
      apply_evaluation(record, item.compiled, std::move(result));
      record.device_index = device_indices[e];
      std::lock_guard<std::mutex> lock(mutex);
      slots[item.job][item.slot] = record;
      finished(record);
    }
  };

  size_t jobs = static_cast<size_t>(std::max<int64_t>(1, settings.compile_jobs));
  jobs = std::min(jobs, std::max<size_t>(1, candidates.size()));
  compiling = jobs;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs; ++i) threads.emplace_back(compile_worker);
  for (size_t e = 0; e < evaluators.size(); ++e) threads.emplace_back(eval_worker, e);
  for (auto& t : threads) t.join();

  std::vector<CandidateRecord> out;
  for (auto& s : slots)
    for (auto& r : s) out.push_back(std::move(r));
  return out;
}

}  // namespace kb::search
