#include "profiler/evaluate/arch_verification.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "profiler/evaluate/archs/arch_plan.h"

namespace kb::profiler {
namespace {

// The line of a compile log a reader needs first: its first error, else its first line.
std::string compile_log_headline(const CompiledVariant& compiled) {
  if (!compiled.failure_reason.empty()) return compiled.failure_reason;
  std::string first;
  size_t start = 0;
  while (start < compiled.log.size()) {
    size_t end = compiled.log.find('\n', start);
    if (end == std::string::npos) end = compiled.log.size();
    const std::string line = compiled.log.substr(start, end - start);
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos) {
      first = line;
      break;
    }
    start = end + 1;
  }
  if (first.size() > 300) first = first.substr(0, 300) + "...";
  return first.empty() ? "no compiler output" : first;
}

void skip(VerificationReport& v, ArchCheck check, const std::string& why) {
  check.outcome = ArchOutcome::skipped;
  check.detail = why;
  spdlog::info("{}: skipped: {}", check.arch, why);
  v.archs.push_back(std::move(check));
}

// The candidate fails for `check.arch`: that is the result's verdict, with the architecture named.
void fail(EvalResult& result, ArchCheck check, Verdict verdict, const std::string& why) {
  VerificationReport& v = result.verification;
  check.outcome = ArchOutcome::failed;
  check.detail = why;
  result.verdict = verdict;
  result.reason = "for " + check.arch + ", which the project builds for (" + check.how + "): " + why;
  v.passed = false;
  v.failure = check.arch + ": " + why;
  spdlog::warn("{}: {}", check.arch, result.reason);
  v.archs.push_back(std::move(check));
}

// What a verification for one architecture proved, in a few words.
std::string verified_summary(const VerificationReport& r) {
  return fmt::format("{} trial{} at {} size set{}{}, {} further check{} passed", r.trials, r.trials == 1 ? "" : "s",
                     r.sizes.size(), r.sizes.size() == 1 ? "" : "s",
                     r.generalization_sizes.empty()
                         ? std::string()
                         : fmt::format(" and {} unconfigured size{}", r.generalization_sizes.size(),
                                       r.generalization_sizes.size() == 1 ? "" : "s"),
                     r.passes.size(), r.passes.size() == 1 ? "" : "s");
}

}  // namespace

void verify_target_archs(Evaluator& evaluator, const config::KernelSpec& spec, const Variant& original,
                         const Variant& candidate, const TargetArchs& targets, EvalResult& result) {
  VerificationReport& v = result.verification;
  v.archs.clear();
  std::string evidence;
  for (const auto& e : targets.evidence) evidence += (evidence.empty() ? "" : ", ") + e;
  v.archs_source = !targets.found()   ? targets.source + ": this GPU's architecture only"
                   : evidence.empty() ? targets.source
                                      : targets.source + ": " + evidence;
  if (!verdict_is_correct(result.verdict) || !targets.found()) return;
  const auto start = std::chrono::steady_clock::now();
  auto spent = [&] {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.phase_s["target architectures"] += s;
    result.run_s += s;
  };
  const DeviceInfo device = evaluator.device();
  const GpuArch gpu{device.cc_major * 10 + device.cc_minor, 0};
  for (const ArchStep& step : plan_arch_steps(targets, evaluator.compile_arch(), gpu)) {
    ArchCheck check{step.target.sm(), ArchOutcome::verified, step.how, ""};
    if (step.kind == ArchStepKind::judge) {
      v.archs.push_back(check);
      continue;
    }
    spdlog::info("{}: {} for {} ({})", spec.name,
                 step.kind == ArchStepKind::run ? "verifying" : "compiling, not running,", check.arch, check.how);
    const CompiledVariant base = evaluator.compile_for_arch(spec, original, step.build);
    if (!base.ok) {
      skip(v, check,
           (base.machine_failure ? "the original could not be compiled for it here: "
                                 : "the original does not compile for it: ") +
               compile_log_headline(base));
      continue;
    }
    const CompiledVariant built = evaluator.compile_for_arch(spec, candidate, step.build);
    if (!built.ok && built.machine_failure) {
      // Not the candidate's fault, and nothing proven: the result cannot stand as verified.
      result.verdict = Verdict::infra_error;
      result.reason = "the candidate could not be compiled for " + check.arch + " here: " + compile_log_headline(built);
      v.archs.push_back(check);
      v.archs.back().outcome = ArchOutcome::skipped;
      v.archs.back().detail = result.reason;
      spent();
      return;
    }
    if (!built.ok) {
      result.compile_log += "\n--- the compile for " + check.arch + " ---\n" + built.log;
      fail(result, check, Verdict::compile_error, "does not compile: " + compile_log_headline(built));
      spent();
      return;
    }
    if (step.kind == ArchStepKind::compile_only) {
      check.outcome = ArchOutcome::compiled;
      check.detail = step.why_not_run;
      v.archs.push_back(check);
      continue;
    }
    EvalOptions verify_only;
    verify_only.time = false;
    const EvalResult r = evaluator.evaluate(spec, base, built, verify_only);
    if (verdict_is_correct(r.verdict) && r.verification.passed) {
      check.detail = verified_summary(r.verification);
      for (const auto& line : r.verification.skipped_checks)
        if (std::find(v.skipped_checks.begin(), v.skipped_checks.end(), line) == v.skipped_checks.end())
          v.skipped_checks.push_back(line + " (for " + check.arch + ")");
      for (const auto& w : r.verification.warnings) v.warnings.push_back(check.arch + ": " + w);
      v.archs.push_back(check);
      continue;
    }
    if (r.verdict == Verdict::infra_error) {
      skip(v, check, "the original cannot be verified for it here: " + r.reason);
      continue;
    }
    // A verdict that stayed correct with a failed verification ("verified only" is no reason): the failure.
    const bool unverified = verdict_is_correct(r.verdict) || r.verdict == Verdict::pending;
    const std::string& why = (unverified && !r.verification.failure.empty()) || r.reason.empty()
                                 ? r.verification.failure
                                 : r.reason;
    fail(result, check, unverified ? Verdict::wrong_result : r.verdict, why);
    spent();
    return;
  }
  spent();
}

void verify_target_archs(Evaluator& evaluator, const config::Config& config, const config::KernelSpec& spec,
                         const Variant& original, const Variant& candidate, EvalResult& result) {
  const TargetArchs targets = read_target_archs(config, spec);
  for (const auto& note : targets.notes) spdlog::info("{}: target architectures: {}", spec.name, note);
  spdlog::info("{}: target architectures: {}", spec.name, describe_target_archs(targets));
  verify_target_archs(evaluator, spec, original, candidate, targets, result);
}

}  // namespace kb::profiler
