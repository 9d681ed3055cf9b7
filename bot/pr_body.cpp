#include "bot/pr_body.h"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "search/prompt_template.h"

namespace kb::embedded {
extern const char* const pr_body_template;
}

namespace kb::bot {
namespace {

std::string us(double v) { return v >= 1000 ? fmt::format("{:.1f} us", v) : fmt::format("{:.2f} us", v); }
std::string pct(double v) { return fmt::format("{:.2f}%", v * 100); }

std::string timing_table(const search::CandidateRecord& best) {
  std::string out =
      "| size | original (median) | kernelbot (median) | speedup | noise before / after | % of roofline floor "
      "before → after | samples before / after |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& t : best.eval.timings) {
    std::string floor = t.floor_us > 0 ? fmt::format("{:.0f}% → {:.0f}%", t.baseline_pct_of_floor,
                                                     t.candidate_pct_of_floor)
                                       : "not known (no bandwidth or FLOP count)";
    out += fmt::format("| {} | {} | {} | **{:.2f}x**{} | {} / {} | {} | {} / {} |\n", t.size_label,
                       us(t.baseline.median_us), us(t.candidate.median_us), t.speedup,
                       t.significant ? "" : " (within noise)", pct(t.baseline.noise), pct(t.candidate.noise), floor,
                       t.baseline.samples, t.candidate.samples);
  }
  if (best.eval.timings.empty()) return "No timings were recorded for this candidate.";
  const auto& first = best.eval.timings.front();
  out += fmt::format(
      "\nMedians of cold samples (L2 {} before each), original and candidate interleaved in one process; "
      "quartiles of the first size: {} – {} before, {} – {} after.",
      first.baseline.l2_flushed ? "flushed" : "not flushed", us(first.baseline.q1_us), us(first.baseline.q3_us),
      us(first.candidate.q1_us), us(first.candidate.q3_us));
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string correctness(const search::CandidateRecord& best) {
  const auto& v = best.eval.verification;
  std::string out = fmt::format(
      "Verified against the original, which is the reference: {} trials on fresh random inputs (never zeros) at "
      "{} size set{} ({}), input distributions {}. Outputs were poisoned before every call and checked fully "
      "written; inputs were checked unchanged; consecutive calls with different inputs had to give different, "
      "correct outputs; NaN never passes.{}\n\n",
      v.trials, v.sizes.size(), v.sizes.size() == 1 ? "" : "s", join(v.sizes, ", "), join(v.distributions, ", "),
      v.strict_pass ? " The speedup was large enough to trigger an extra-strict verification pass, which it passed."
                    : "");
  out += "| output | dtype | worst abs error | worst rel error | tolerance (rtol / atol) | elements checked |\n"
         "| --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const auto& o : v.outputs)
    out += fmt::format("| {} | {} | {:.3g} | {:.3g} | {:.0e} / {:.0e} | {} |\n", o.name, o.dtype, o.max_abs_error,
                       o.max_rel_error, o.rtol, o.atol, o.elements);
  if (!v.seeds.empty()) {
    std::vector<std::string> seeds;
    for (auto s : v.seeds) seeds.push_back(std::to_string(s));
    out += "\nSeeds: " + join(seeds, ", ") + ".";
  }
  if (v.sanitized)
    out += v.sanitizer_report.empty() ? " compute-sanitizer (memcheck, racecheck) found nothing."
                                      : " compute-sanitizer report: " + v.sanitizer_report;
  return out;
}

std::string metric_cell(const KernelMetrics& m, const std::string& key) {
  auto it = m.values.find(key);
  if (it == m.values.end()) return "—";
  double v = it->second;
  if (key.find("bytes") != std::string::npos) return fmt::format("{:.1f} MB", v / 1e6);
  return fmt::format("{:.2f}", v);
}

std::string profile(const search::SearchResult& result, const search::CandidateRecord& best) {
  // Hardware counters come from the runs that collected them; the compiler's report for both.
  const KernelMetrics& before = result.baseline_profile.baseline_metrics;
  const KernelMetrics& after = best.eval.candidate_metrics;
  std::string out;
  auto status_line = [](const char* who, const KernelMetrics& m) {
    return m.status == "ok" ? std::string() : fmt::format("- {}: hardware counters not collected: {}\n", who, m.status);
  };
  out += status_line("original", before) + status_line("kernelbot", after);
  std::set<std::string> keys;
  for (const auto& [k, v] : before.values) keys.insert(k);
  for (const auto& [k, v] : after.values) keys.insert(k);
  out += "\n| metric | original | kernelbot |\n| --- | ---: | ---: |\n";
  for (const auto& k : keys) out += "| " + k + " | " + metric_cell(before, k) + " | " + metric_cell(after, k) + " |\n";
  auto num = [](int64_t v) { return v > 0 ? std::to_string(v) : std::string("0"); };
  out += fmt::format("| registers per thread | {} | {} |\n", before.registers_per_thread, after.registers_per_thread);
  out += fmt::format("| static shared memory (bytes) | {} | {} |\n", num(before.static_shared_bytes),
                     num(after.static_shared_bytes));
  out += fmt::format("| local memory per thread (bytes) | {} | {} |\n", num(before.local_bytes_per_thread),
                     num(after.local_bytes_per_thread));
  out += fmt::format("| spill stores / loads (bytes) | {} / {} | {} / {} |\n", num(before.spill_stores_bytes),
                     num(before.spill_loads_bytes), num(after.spill_stores_bytes), num(after.spill_loads_bytes));
  return out;
}

std::string idea_path(const search::SearchResult& result, const search::CandidateRecord& best) {
  std::string out = "| step | round | idea | family | result |\n| --- | ---: | --- | --- | --- |\n";
  for (const auto* c : result.path_to(best.id)) {
    std::string outcome = c->id == "baseline" ? "the original"
                          : verdict_is_correct(c->verdict)
                              ? fmt::format("{}, {:.2f}x", to_string(c->verdict), c->speedup)
                              : to_string(c->verdict);
    std::string idea = c->id == "baseline" ? "—" : c->idea.text;
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", c->id, c->round, idea,
                       c->idea.family.empty() ? "—" : c->idea.family, outcome);
  }
  out += fmt::format("\nThe search ({} proposer) tried {} candidates in {:.0f} s and stopped: {}.", result.proposer,
                     result.budget.candidates, result.budget.wall_time_s, result.stop_reason);
  return out;
}

}  // namespace

std::string render_pr_title(const search::SearchResult& result) {
  const auto* best = result.best();
  if (!best) throw std::invalid_argument("the search for '" + result.kernel + "' has no winner to open a PR for");
  return fmt::format("kernelbot: {} {:.2f}x faster", result.kernel, best->speedup);
}

std::string render_pr_body(const search::SearchResult& result, const SourceChange& change, const PrContext& ctx) {
  const auto* best = result.best();
  if (!best) throw std::invalid_argument("the search for '" + result.kernel + "' has no winner to open a PR for");
  const DeviceInfo& d = result.device;
  std::string verdict = fmt::format(
      "**`{}` is {:.2f}x faster** (geometric mean over {} size set{}), verified against the original on {} trials, "
      "measured on an {}.",
      ctx.kernel, best->speedup, best->eval.timings.size(), best->eval.timings.size() == 1 ? "" : "s",
      best->eval.verification.trials, d.name.empty() ? "unnamed GPU" : d.name);
  std::string summary = fmt::format("This changes `{}` only. The winning candidate is `{}`: {}", ctx.source_path,
                                    best->id, best->idea.text.empty() ? "(no idea text)" : best->idea.text);
  if (!best->variant.defines.empty())
    summary += "\n\nCompile-time parameters of the winner: `" + join(best->variant.defines, "`, `") + "`.";
  std::string notes;
  if (!change.notes.empty()) {
    notes = "\n### Needs your attention\n\n";
    for (const auto& n : change.notes) notes += "- " + n + "\n";
    notes += "\n";
  }
  std::string reproduce = fmt::format(
      "```sh\nkernelbot eval --kernel {} --candidate {}\n```\n\nGPU: {} (compute capability {}.{}, {} SMs), driver "
      "{}, CUDA runtime {}; measured copy bandwidth {:.0f} GB/s.",
      ctx.kernel, ctx.candidate_path, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, d.runtime_version,
      d.copy_bandwidth_gbps);
  return search::fill_template(kb::embedded::pr_body_template,
                               {{"VERDICT", verdict},
                                {"CHANGE_SUMMARY", summary},
                                {"TIMING", timing_table(*best)},
                                {"CORRECTNESS", correctness(*best)},
                                {"PROFILE", profile(result, *best)},
                                {"IDEA_PATH", idea_path(result, *best)},
                                {"NOTES", notes},
                                {"REPRODUCE", reproduce},
                                {"KERNELBOT_VERSION", ctx.kernelbot_version}});
}

}  // namespace kb::bot
