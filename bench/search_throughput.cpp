// search_throughput: how fast the search turns candidates around on the device. For each
// examples/ kernel it runs the builtin proposer (no archive, a fixed candidate budget) and
// reports candidates compiled, verified and timed per minute; then it shows what repeating
// work costs: a repeated compile (the evaluator's compile cache) and a repeated search (the
// archive: nothing is compiled or run again). With [search] screening on (the default; turn it
// off with --no-screening to compare) it also reports the time per phase (compile, screening,
// full verification and timing, summed over candidates) and the share screened out.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "common/file_io.h"
#include "config/config_loader.h"
#include "core/number_format.h"
#include "profiler/device_query.h"
#include "profiler/evaluate/compile/nvcc_phase_times.h"
#include "profiler/evaluate/gpu_evaluator.h"
#include "search/archive/archive.h"
#include "search/builtin/builtin_proposer.h"
#include "search/engine/screening.h"
#include "search/engine/search_engine.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
  std::string kernel;
  int64_t candidates = 0, compiled = 0, cached = 0, verified = 0, timed = 0;
  double wall_s = 0, compile_s = 0, run_s = 0, best = 1;
  double gpus = 1;  // the GPUs its search used
  kb::search::SearchPhases phases;
};

Row measure(kb::search::SearchResult& result, double wall_s) {
  Row row;
  row.kernel = result.kernel;
  row.wall_s = wall_s;
  for (const auto& c : result.tree) {
    if (c.is_original() || c.from_archive || c.verdict() == kb::Verdict::rejected) continue;
    ++row.candidates;
    if (c.verdict() != kb::Verdict::compile_error) ++row.compiled;
    if (c.compile_cached) ++row.cached;
    if (c.eval.verification.passed) ++row.verified;
    if (!c.eval.timings.empty()) ++row.timed;
    row.compile_s += c.compile_s();
    // A screened-out candidate's eval is its screening; a contender's, the full evaluation.
    row.run_s += c.eval.run_s + (kb::search::fully_evaluated(c) ? c.screening.run_s : 0);
  }
  if (const auto* best = result.best()) row.best = best->speedup();
  row.phases = result.phases;
  return row;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream s(list);
  for (std::string item; std::getline(s, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string throughput_line(const Row& r) {
  return fmt::format("{:<12} {:>10} {:>9} {:>7} {:>9} {:>6} {:>8.1f} {:>10.1f} {:>10.1f} {:>12.1f} {:>7}\n", r.kernel,
                     r.candidates, r.compiled, r.cached, r.verified, r.timed, r.wall_s, r.compile_s, r.run_s,
                     r.candidates / r.wall_s * 60, kb::format_speedup(r.best));
}

// The rows' sum, with the whole run's wall time (the searches' own walls overlap when they run
// side by side).
Row total_of(const std::vector<Row>& rows, double all_wall_s, size_t gpus) {
  Row total;
  total.kernel = "all";
  for (const auto& r : rows) {
    total.candidates += r.candidates, total.compiled += r.compiled, total.cached += r.cached;
    total.verified += r.verified, total.timed += r.timed;
    total.compile_s += r.compile_s, total.run_s += r.run_s;
    total.best = std::max(total.best, r.best);
  }
  total.wall_s = all_wall_s;
  total.gpus = static_cast<double>(gpus);
  return total;
}

// Where the evaluation time went, and what the screening saved.
void print_screening_table(const std::vector<Row>& rows) {
  std::cout << fmt::format("{:<12} {:>9} {:>9} {:>7} {:>9} {:>10} {:>10} {:>9} {:>16}\n", "kernel", "screened",
                           "screened", "failed", "fully", "compile s", "screen s", "full s", "per GPU-minute");
  std::cout << fmt::format("{:<12} {:>9} {:>9} {:>7} {:>9}\n", "", "", "out", "screen", "evaluated");
  for (const auto& r : rows) {
    const auto& p = r.phases;
    std::cout << fmt::format("{:<12} {:>9} {:>8.0f}% {:>7} {:>9} {:>10.1f} {:>10.1f} {:>9.1f} {:>16.1f}\n", r.kernel,
                             p.screened, p.screened ? 100.0 * p.screened_out / p.screened : 0.0, p.failed_screening,
                             p.fully_evaluated, p.compile_s, p.screen_s, p.full_s,
                             r.candidates / r.wall_s * 60 / r.gpus);
  }
  std::cout << "(screened out: correct on the screening, clearly slower than a confirmed candidate or the original; "
               "per GPU-minute: candidates per minute of wall time divided by the GPUs)\n\n";
}

// GPU seconds no candidate's job used.
double idle_gpu_s(const Row& r) {
  double in_jobs = 0;
  for (const auto& [phase, v] : r.phases.job_phase_s) in_jobs += v;
  return std::max(0.0, r.wall_s * r.gpus - in_jobs);
}

// Inside the evaluations: the harness jobs' phases, and the GPU time no job used.
void print_job_phase_table(const std::vector<Row>& rows) {
  std::vector<std::string> phase_names;
  for (const auto& r : rows)
    for (const auto& [phase, unused] : r.phases.job_phase_s)
      if (std::find(phase_names.begin(), phase_names.end(), phase) == phase_names.end()) phase_names.push_back(phase);
  std::cout << fmt::format("{:<12}", "kernel");
  for (const auto& phase : phase_names) std::cout << fmt::format(" {:>16}", phase);
  std::cout << fmt::format(" {:>10}\n", "idle GPU");
  for (const auto& r : rows) {
    std::cout << fmt::format("{:<12}", r.kernel);
    for (const auto& phase : phase_names) {
      const auto it = r.phases.job_phase_s.find(phase);
      std::cout << fmt::format(" {:>16.1f}", it == r.phases.job_phase_s.end() ? 0 : it->second);
    }
    std::cout << fmt::format(" {:>10.1f}\n", idle_gpu_s(r));
  }
  std::cout << "(seconds summed over the candidates' harness jobs, screening and full; idle GPU: wall s times the "
               "GPUs minus the candidates' job seconds: measuring the original, compiling while no job ran, and "
               "the search's own work)\n\n";
}

// Seconds by part inside one phase of the jobs, a row each, a column per kernel: `parts` picks the
// map (SearchPhases::pass_s for verification, timing_part_s for timing).
void print_part_table(const std::vector<Row>& rows, const char* phase,
                      std::map<std::string, double> kb::search::SearchPhases::*parts) {
  std::vector<std::string> names;
  for (const auto& r : rows)
    for (const auto& [name, unused] : r.phases.*parts)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (names.empty()) return;
  std::cout << fmt::format("{:<40}", phase);
  for (const auto& r : rows) std::cout << fmt::format(" {:>12}", r.kernel);
  std::cout << "\n";
  for (const auto& name : names) {
    std::cout << fmt::format("{:<40}", name);
    for (const auto& r : rows) {
      const auto it = (r.phases.*parts).find(name);
      std::cout << fmt::format(" {:>12.2f}", it == (r.phases.*parts).end() ? 0 : it->second);
    }
    std::cout << "\n";
  }
  std::cout << "(seconds summed over the candidates' harness jobs, screening and full: the " << phase
            << " phase above, by part)\n\n";
}

// The idle GPU, explained: the search's own phases, outside the candidates' jobs.
void print_idle_gpu_table(const std::vector<Row>& rows) {
  std::cout << fmt::format("{:<12} {:>12} {:>10} {:>14} {:>16} {:>10}\n", "kernel", "original s", "propose s",
                           "GPU waiting s", "winner counters", "rest s");
  for (const auto& r : rows) {
    const auto& p = r.phases;
    const double rest = idle_gpu_s(r) - p.original_s - p.proposing_s - p.gpu_wait_s - p.winner_metrics_s;
    std::cout << fmt::format("{:<12} {:>12.1f} {:>10.1f} {:>14.1f} {:>16.1f} {:>10.1f}\n", r.kernel, p.original_s,
                             p.proposing_s, p.gpu_wait_s, p.winner_metrics_s, rest);
  }
  std::cout << "(original: compiling and measuring it, with counters; propose: the proposer's ideas; GPU waiting: "
               "GPU workers with nothing to evaluate during rounds (compiles, replies); rest: the idle GPU left "
               "unexplained: between rounds, process handling around jobs)\n\n";
}

// Where this run's compiles spent their time: nvcc's own phase report, kept beside every library
// the run compiled (the compile cache's entries written since `since`).
void print_compile_phase_table(const std::filesystem::path& cache, std::filesystem::file_time_type since) {
  std::map<std::string, double> seconds;
  int compiles = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache, ec)) {
    const auto report = entry.path() / kb::profiler::kNvccTimeFile;
    if (!entry.is_directory() || !std::filesystem::exists(report) || std::filesystem::last_write_time(report) < since)
      continue;
    const auto text = kb::try_read_text_file(report);
    if (!text) continue;
    for (const auto& [phase, s] : kb::profiler::nvcc_phase_seconds(*text)) seconds[phase] += s;
    ++compiles;
  }
  if (compiles == 0) {
    std::cout << "compile phases: no library compiled in this run (every variant came from the compile cache)\n\n";
    return;
  }
  double total = 0;
  for (const auto& [phase, s] : seconds) total += s;
  std::cout << fmt::format("{:<32} {:>10} {:>8} {:>12}\n", "compile phase", "seconds", "share", "per compile");
  for (const auto& [phase, s] : seconds)
    std::cout << fmt::format("{:<32} {:>10.2f} {:>7.1f}% {:>12.3f}\n", phase, s, 100 * s / total, s / compiles);
  std::cout << fmt::format("(nvcc's own report of the {} libraries this run compiled, summed: {:.2f} s of tool time; "
                           "parallel compiles overlap, so it is more than their wall time)\n\n",
                           compiles, total);
}

// A repeated candidate: the same variant compiled again comes from the compile cache.
void print_repeat_compile(kb::Evaluator& evaluator, const kb::config::KernelSpec& spec,
                          const kb::search::SearchResult& first) {
  const kb::search::CandidateRecord* sample = first.best() ? first.best() : &first.tree.back();
  auto t0 = Clock::now();
  auto again = evaluator.compile(spec, sample->variant);
  double again_s = kb::seconds_since(t0);
  std::cout << fmt::format("repeat compile of {} ({}): {:.3f} s wall, from cache: {} (first compile took {:.2f} s)\n",
                           sample->id, sample->variant.label, again_s, again.from_cache ? "yes" : "no",
                           sample->compile_s());
}

// A repeated search with an archive: the second run compiles and runs nothing it has seen.
// One archive per process: two benchmarks run at once (one per GPU, to measure what they share)
// each removed and recreated the other's at one fixed path ("disk I/O error").
void print_repeat_search(const kb::config::Config& config, const kb::config::KernelSpec& spec, kb::Evaluator* evaluator,
                         const std::vector<kb::Evaluator*>& more) {
  auto archive_path = std::filesystem::temp_directory_path() /
                      ("kb_search_throughput_archive-" + std::to_string(::getpid()) + ".sqlite");
  std::filesystem::remove(archive_path);
  kb::search::Archive archive(archive_path);
  double runs[2] = {0, 0};
  int64_t evaluated[2] = {0, 0}, reused[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    kb::search::BuiltinProposer proposer(config, spec);
    kb::search::SearchRequest req{&config, &spec, evaluator, more, &proposer, &archive, {}};
    auto t1 = Clock::now();
    auto result = kb::search::run_search(req);
    runs[i] = kb::seconds_since(t1);
    evaluated[i] = result.budget.candidates;
    reused[i] = result.archive_reused;
  }
  std::cout << fmt::format("repeat search of {} with an archive: first {:.1f} s ({} evaluated), again {:.1f} s "
                           "({} evaluated, {} reused from the archive; only the original is re-measured)\n",
                           spec.name, runs[0], evaluated[0], runs[1], evaluated[1], reused[1]);
  std::filesystem::remove(archive_path);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Candidates compiled, verified and timed per minute by kernelbot's search on this GPU"};
  std::string config_path = KB_SOURCE_DIR "/examples/kernelbot.toml";
  std::string kernels;
  int64_t max_candidates = 24;
  bool all_gpus = false;
  bool one_kernel_at_a_time = false;
  bool no_screening = false;
  app.add_option("--config", config_path, "kernelbot.toml whose kernels to search")->check(CLI::ExistingFile);
  app.add_option("--kernels", kernels, "Comma-separated [[kernel]] names (default: all)");
  app.add_option("--max-candidates", max_candidates, "Candidate budget per kernel")->check(CLI::PositiveNumber);
  app.add_flag("--all-gpus", all_gpus,
               "Evaluate on every visible GPU (default: the first only): one worker per GPU, each searching the next "
               "kernel on its own GPU, as `kernelbot run` does");
  app.add_flag("--one-kernel-at-a-time", one_kernel_at_a_time,
               "With --all-gpus: search the kernels one after the other, each one's candidates spread over every GPU "
               "(as `kernelbot search` does)");
  app.add_flag("--no-screening", no_screening, "Fully evaluate every candidate ([search] screening = false)");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  try {
    auto config = kb::config::load_config(config_path);
    config.search.max_candidates = max_candidates;
    config.search.rounds = 100;  // the candidate budget ends each search, not the rounds
    config.search.min_round_gain = 0;
    config.search.max_wall_time_s = 3600;
    if (no_screening) config.search.screening = false;
    auto devices = kb::profiler::query_devices();
    std::vector<std::unique_ptr<kb::Evaluator>> evaluators;
    for (size_t i = 0; i < (all_gpus ? devices.size() : 1); ++i)
      evaluators.push_back(kb::profiler::make_gpu_evaluator(config, devices[i].index));
    std::vector<kb::Evaluator*> more;
    for (size_t i = 1; i < evaluators.size(); ++i) more.push_back(evaluators[i].get());
    unsigned cores = std::thread::hardware_concurrency();
    std::cout << fmt::format("{} x {}, {} cores, compile_jobs = {}, screening {}, {}, candidates timed to a median "
                             "error of {:.2g}% (the original to {:.2g}%)\n\n",
                             evaluators.size(), devices.front().name, cores,
                             config.search.compile_jobs > 0 ? std::to_string(config.search.compile_jobs) : "all",
                             config.search.screening ? "on" : "off",
                             config.verify.persistent_judge ? "one judge per search and GPU (persistent_judge)"
                                                            : "a judge per job (persistent_judge = false)",
                             config.search_max_error() * 100, config.bench.max_error * 100);

    std::vector<std::string> names = split(kernels);
    if (names.empty())
      for (const auto& k : config.kernels) names.push_back(k.name);
    std::cout << fmt::format("{:<12} {:>10} {:>9} {:>7} {:>9} {:>6} {:>8} {:>10} {:>10} {:>12} {:>7}\n", "kernel",
                             "candidates", "compiled", "cached", "verified", "timed", "wall s", "compile s", "eval s",
                             "per minute", "best")
              << std::flush;
    for (const auto& name : names)
      if (!config.find_kernel(name)) throw std::runtime_error("no [[kernel]] named '" + name + "' in " + config_path);
    // One search: on `evaluator` alone, or with its candidates spread over `others` too.
    auto search = [&](const std::string& name, kb::Evaluator* evaluator, const std::vector<kb::Evaluator*>& others) {
      const auto* spec = config.find_kernel(name);
      kb::search::BuiltinProposer proposer(config, *spec);
      kb::search::SearchRequest req{&config, spec, evaluator, others, &proposer, nullptr, {}};
      auto t0 = Clock::now();
      auto result = kb::search::run_search(req);
      Row row = measure(result, kb::seconds_since(t0));
      row.gpus = static_cast<double>(1 + others.size());
      return std::make_pair(row, std::move(result));
    };
    std::vector<Row> rows(names.size());
    std::optional<kb::search::SearchResult> first;
    std::mutex printing;
    const bool queue = evaluators.size() > 1 && !one_kernel_at_a_time && names.size() > 1;
    const auto all_start = Clock::now();
    const auto run_started = std::filesystem::file_time_type::clock::now();
    if (!queue) {
      for (size_t i = 0; i < names.size(); ++i) {
        auto [row, result] = search(names[i], evaluators.front().get(), more);
        rows[i] = row;
        std::cout << throughput_line(rows[i]) << std::flush;  // row by row: a long run still reports what it measured
        if (!first) first = std::move(result);
      }
    } else {
      // One worker per GPU, each taking the next kernel: what `kernelbot run` does on several GPUs.
      std::atomic<size_t> next{0};
      std::vector<std::jthread> workers;
      for (auto& e : evaluators)
        workers.emplace_back([&, evaluator = e.get()] {
          for (size_t i; (i = next++) < names.size();) {
            auto [row, result] = search(names[i], evaluator, {});
            std::lock_guard lock(printing);
            rows[i] = row;
            std::cout << throughput_line(rows[i]) << std::flush;
            if (i == 0) first = std::move(result);
          }
        });
    }
    const Row total = total_of(rows, kb::seconds_since(all_start), evaluators.size());
    if (rows.size() > 1) std::cout << throughput_line(total);
    std::cout << fmt::format("per GPU: {:.1f} candidates a minute ({} candidates in {:.1f} s on {} GPU{})\n",
                             total.candidates / total.wall_s * 60 / total.gpus, total.candidates, total.wall_s,
                             evaluators.size(), evaluators.size() == 1 ? "" : "s");
    std::cout << "(wall s includes measuring each original; compile s and eval s are summed over candidates, "
                 "which overlap"
              << (queue ? "; one kernel per GPU at a time, so the kernels' walls overlap and all's "
                          "is the whole run's"
                        : "")
              << ")\n\n";
    print_screening_table(rows);
    print_job_phase_table(rows);
    print_part_table(rows, "verification", &kb::search::SearchPhases::pass_s);
    print_part_table(rows, "timing", &kb::search::SearchPhases::timing_part_s);
    print_idle_gpu_table(rows);
    print_compile_phase_table(std::filesystem::absolute(config.resolve(config.search.work_dir)) / "cache", run_started);
    const auto* spec = config.find_kernel(names.front());
    print_repeat_compile(*evaluators.front(), *spec, *first);
    print_repeat_search(config, *spec, evaluators.front().get(), more);
    return 0;
  } catch (const kb::profiler::NoDeviceError& e) {
    std::cerr << "search_throughput: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "search_throughput: error: " << e.what() << "\n";
    return 1;
  }
}
