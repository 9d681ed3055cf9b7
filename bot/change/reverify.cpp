#include "bot/change/reverify.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

#include "common/clock.h"
#include "common/sha256.h"
#include "core/number_format.h"
#include "core/speedup_rule.h"
#include "profiler/evaluate/arch_verification.h"

namespace kb::bot {
namespace {

constexpr size_t kMaxReason = 300;

// The first error line of a compile log (already redacted and bounded by the evaluator), kept
// short: the reason goes into a one-line note and the PR-less outcome table.
std::string first_error(const std::string& log) {
  size_t start = 0;
  std::string first;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(start, end - start);
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) {
      first = line;
      break;
    }
    start = end + 1;
  }
  if (first.size() > kMaxReason) first = first.substr(0, kMaxReason) + "...";
  return first.empty() ? "no compiler output" : first;
}

}  // namespace

search::Reverification reverify_pr_text(const config::Config& config, const config::KernelSpec& spec,
                                        const SourceChange& change, const std::string& candidate_id,
                                        Evaluator& evaluator, const std::string& by) {
  search::Reverification record;
  record.ran = true;
  record.candidate_id = candidate_id;
  record.path = change.path;
  record.original_sha256 = sha256_hex(change.original);
  record.text_sha256 = sha256_hex(change.updated);
  record.by = by;
  record.at = now_iso8601();
  record.sanitize = config.verify.sanitize || config.verify.sanitize_winner;
  record.strict_speedup = config.verify.strict_speedup;
  record.min_speedup = config.bench.min_speedup;
  spdlog::info("{}: re-verifying the PR's text ({} as changed by {}) against the original", spec.name, change.path,
               candidate_id);
  // Exactly the PR's file: no -D values and no extra flags, since the PR changes neither the
  // build nor anything but this text (what it cannot carry is a note in the PR, and is not measured).
  const Variant original{change.original, {}, {}, "original"};
  const Variant pr_text{change.updated, {}, {}, "pr-text"};
  EvalResult& eval = record.eval;
  const auto started = std::chrono::steady_clock::now();
  try {
    const DeviceInfo device = evaluator.device();  // the record says where, whatever the outcome
    eval.device = device;
    CompiledVariant base = evaluator.compile(spec, original);
    if (!base.ok) {
      // It compiled for the search; failing now is this machine's problem, not the candidate's.
      eval.verdict = Verdict::infra_error;
      eval.reason = "the original does not compile here: " + first_error(base.log);
    } else {
      CompiledVariant candidate = evaluator.compile(spec, pr_text);
      if (!candidate.ok) {
        eval.verdict = Verdict::compile_error;
        eval.reason = "the PR's file does not compile: " + first_error(candidate.log);
        eval.compile_log = candidate.log;
      } else {
        EvalOptions options;
        options.time = true;
        options.collect_metrics = false;  // counters would disturb the timing; the search collected them
        options.sanitize = record.sanitize;
        eval = evaluator.evaluate(spec, base, candidate, options);
        if (eval.device.name.empty()) eval.device = device;
        // The PR ships for every architecture the project builds: each is verified (or compiled,
        // where this GPU cannot run it) before any PR (profiler/evaluate/arch_verification.h).
        profiler::verify_target_archs(evaluator, config, spec, original, pr_text, eval);
      }
    }
  } catch (const std::exception& e) {
    eval.verdict = Verdict::infra_error;
    eval.reason = e.what();
  }
  // Where the re-verification's time went (compiles, the judge's job, the sanitizer, the other
  // architectures), for a run's log: it is outside the search's budget.
  const std::string phases = describe_phases(eval.phase_s);
  spdlog::info("{}: re-verification took {:.1f} s{}", spec.name,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
               phases.empty() ? "" : " (" + phases + ")");
  record.failure = why_not_publishable(eval, config.bench.min_speedup);
  record.passed = record.failure.empty();
  for (const auto& w : eval.verification.warnings) spdlog::warn("{}: {}", spec.name, w);
  if (record.passed)
    spdlog::info("{}: the PR's text re-verified: {}, {}", spec.name, to_string(eval.verdict),
                 format_speedup(eval.speedup));
  else spdlog::warn("{}: the PR's text failed re-verification: {}", spec.name, record.failure);
  return record;
}

std::optional<std::string> record_mismatch(const search::Reverification& record, const SourceChange& change,
                                           const std::string& candidate_id) {
  if (!record.ran) return "the result carries no re-verification of the PR's text";
  if (record.candidate_id != candidate_id)
    return fmt::format("the re-verification is of candidate {}, not of the winner {}", record.candidate_id,
                       candidate_id);
  if (record.original_sha256 != sha256_hex(change.original))
    return "the re-verification was measured against another original text of " + change.path;
  if (record.text_sha256 != sha256_hex(change.updated))
    return "the PR's text of " + change.path + " differs from the text that was re-verified";
  return std::nullopt;
}

}  // namespace kb::bot
