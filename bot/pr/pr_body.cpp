#include "bot/pr/pr_body.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <utility>

#include "common/text.h"
#include "common/text_template.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace kb::embedded {
extern const char* const pr_body_template;
}

namespace kb::bot {
namespace {

std::string us(double v) { return format_us(v) + " us"; }
std::string pct(double fraction) { return format_fraction_percent(fraction); }

std::string timing_table(const EvalResult& eval) {
  std::string out =
      "| size | original (median) | kernelbot (median) | speedup | noise before / after | % of roofline floor "
      "before → after | samples before / after |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& t : eval.timings) {
    std::string floor = t.floor_us > 0
                            ? fmt::format("{:.0f}% → {:.0f}%", t.baseline_pct_of_floor, t.candidate_pct_of_floor)
                            : "not known (no bandwidth or FLOP count)";
    out += fmt::format("| {} | {} | {} | **{}**{}{} | {} / {} | {} | {} / {} |\n", t.size_label,
                       us(t.baseline.median_us), us(t.candidate.median_us), format_speedup(t.speedup),
                       t.significant ? "" : " (within noise)", t.wall_clock_rules ? " (by the judge's clock¹)" : "",
                       pct(t.baseline.noise), pct(t.candidate.noise), floor, t.baseline.samples, t.candidate.samples);
  }
  for (const auto& t : eval.timings)
    if (t.wall_clock_rules) {
      out += fmt::format(
          "\n¹ At {} the speedup is the judge's own clock's over back-to-back calls ({} original, {} kernelbot "
          "per call), not the medians': the candidate's calls cost host time (an allocation, occupancy queries) that "
          "its timed samples do not show and a caller pays, while all its GPU work ran on the caller's stream.\n",
          t.size_label, us(t.baseline_wall_us), us(t.candidate_wall_us));
      break;
    }
  if (eval.timings.empty()) return "No timings were recorded for this candidate.";
  bool above_floor = false;
  for (const auto& t : eval.timings)
    above_floor = above_floor || (t.floor_us > 0 && (t.baseline_pct_of_floor > 100 || t.candidate_pct_of_floor > 100));
  if (above_floor)
    out += "\nAbove 100% of the roofline floor: the floor divides the spec's *estimated* bytes (`[[kernel]].bytes`, by "
           "default inputs read once and outputs written once) by the measured bandwidth, so a kernel that moves less "
           "(a gather, a cache-resident input) runs above it. It is advice: it decides no verdict.\n";
  const auto& first = eval.timings.front();
  out += fmt::format(
      "\nMedians of cold samples (L2 {} before each), original and candidate interleaved (each in its own process, judged by a third); "
      "quartiles of the first size: {} – {} before, {} – {} after.",
      first.baseline.l2_flushed ? "flushed" : "not flushed", us(first.baseline.q1_us), us(first.baseline.q3_us),
      us(first.candidate.q1_us), us(first.candidate.q3_us));
  return out;
}

std::string capitalized(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

std::string seed_list(const std::vector<uint64_t>& seeds) {
  std::vector<std::string> out;
  for (auto s : seeds) out.push_back(std::to_string(s));
  return join(out, ", ");
}

// Each target architecture the project builds and what became of it: verified, compiled but not
// run, or skipped (the original fails there), with how and why; empty for a record without them.
std::string target_archs_line(const VerificationReport& v) {
  if (v.archs_source.empty()) return "";
  if (v.archs.empty()) return "- Target architectures: " + markdown_cell(v.archs_source) + ".\n";
  std::string out = "- Every GPU architecture the project builds for (from " + markdown_cell(v.archs_source) + "):\n";
  // A skipped one was not compiled or run as planned: only why.
  for (const auto& a : v.archs)
    out += a.outcome == ArchOutcome::skipped
               ? fmt::format("  - `{}`: skipped: {}\n", a.arch, markdown_cell(a.detail))
               : fmt::format("  - `{}`: {} ({}){}\n", a.arch, to_string(a.outcome), markdown_cell(a.how),
                             a.detail.empty() ? "" : ": " + markdown_cell(a.detail));
  return out;
}

// Only what ran is claimed: every line comes from the re-verification's own report, and a check
// that did not run is named as such, with the setting that decides it. `when` says when the PR's
// text was measured ("after the search"), `history` what was measured before it.
std::string correctness_of(const search::Reverification& r, const std::string& when, const std::string& history) {
  const auto& v = r.eval.verification;
  std::string out = fmt::format(
      "This file, exactly as this PR changes it, was compiled with the project's flags, verified against the original "
      "and timed by `{}` on {}{}, {}: {}. {} "
      "The timings above and the evidence below are from this re-verification of the PR's text.\n\n",
      r.by, r.eval.device.name.empty() ? "the GPU" : r.eval.device.name, r.at.empty() ? "" : " (" + r.at + ")", when,
      format_speedup(r.eval.speedup), history);
  out += "Checks that ran, with the original as the reference:\n\n";
  out += fmt::format(
      "- {} trial{} on fresh random inputs (never zeros) at {} size set{} ({}), input distributions {}{}.\n", v.trials,
      v.trials == 1 ? "" : "s", v.sizes.size(), v.sizes.size() == 1 ? "" : "s", join(v.sizes, ", "),
      join(v.distributions, ", "), v.seeds.empty() ? "" : "; seeds " + seed_list(v.seeds));
  out += "- In every trial: outputs poisoned before the call and checked fully written, inputs checked unchanged, NaN "
         "never passes, every output within its tolerance (below).\n";
  if (v.trials * static_cast<int64_t>(std::max<size_t>(v.sizes.size(), 1)) > 1)
    out += "- Consecutive calls with different inputs had to give different, correct outputs.\n";
  if (!v.generalization_sizes.empty())
    out += "- Sizes nobody configured, drawn for this run (verified, not timed): " +
           join(v.generalization_sizes, ", ") + ".\n";
  for (const auto& pass : v.passes) out += "- " + capitalized(pass) + ".\n";
  if (!v.skipped_checks.empty())
    // Each line says why: almost always the original fails the condition too; rarely this GPU
    // cannot create it (no green contexts) or no process had the memory for a size.
    out += "- Not held against this code (" + std::to_string(v.skipped_checks.size()) +
           (v.skipped_checks.size() == 1 ? " check" : " checks") +
           " skipped, each with its reason, mostly that the original itself fails it): " +
           join(v.skipped_checks, "; ") + ".\n";
  out += target_archs_line(v);
  if (v.strict_pass)
    out += fmt::format("- The extra-strict verification, for speedups over [verify].strict_speedup = {}: passed.\n",
                       format_speedup(r.strict_speedup));
  if (v.sanitized) {
    const std::string scope = sanitizer_scope(v);
    out += "- compute-sanitizer" + (scope.empty() ? std::string() : " " + scope) + ": ";
    if (v.sanitizer_report.empty()) {
      out += "found nothing.\n";
    } else {
      // What the tools reported but the verdict did not hold against this code, and where it is said.
      auto from_sanitizer = [](const std::vector<std::string>& lines) {
        return std::any_of(lines.begin(), lines.end(),
                           [](const std::string& l) { return l.starts_with("compute-sanitizer"); });
      };
      std::vector<std::string> where;
      if (from_sanitizer(v.skipped_checks)) where.emplace_back("what the original does too is listed above");
      if (from_sanitizer(v.warnings)) where.emplace_back("memory it keeps allocated is in the warnings below");
      out += "found nothing held against this code" + (where.empty() ? "" : " (" + join(where, "; ") + ")") +
             "; the tools' report: " + markdown_cell(v.sanitizer_report) + "\n";
    }
  }
  std::vector<std::string> not_run;
  if (!v.strict_pass)
    not_run.push_back(r.eval.speedup <= r.strict_speedup
                          ? fmt::format("the extra-strict verification (it runs for speedups over "
                                        "[verify].strict_speedup = {})",
                                        format_speedup(r.strict_speedup))
                          : std::string("the extra-strict verification"));
  if (!v.sanitized)
    not_run.push_back(r.sanitize ? "compute-sanitizer (asked for, but it did not run)"
                                 : "compute-sanitizer ([verify].sanitize_winner is off)");
  if (!not_run.empty()) out += "\nNot run: " + join(not_run, "; ") + ".\n";
  out += "\n| output | dtype | worst abs error | worst rel error | tolerance (rtol / atol) | elements checked |\n"
         "| --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const auto& o : v.outputs)
    out += fmt::format("| {} | {} | {:.3g} | {:.3g} | {:.0e} / {:.0e} | {} |\n", o.name, o.dtype, o.max_abs_error,
                       o.max_rel_error, o.rtol, o.atol, o.elements);
  for (const auto& w : v.warnings) out += "\nWarning: " + markdown_cell(w) + "\n";
  while (out.ends_with('\n')) out.pop_back();
  return out;
}

std::string correctness(const search::SearchResult& result, const search::CandidateRecord& best) {
  return correctness_of(result.reverification, "after the search",
                        fmt::format("The search had measured its winner `{}` at {}{}.", best.id,
                                    format_speedup(best.speedup()),
                                    best.from_archive ? ", in an earlier run (kernelbot's archive)" : ""));
}

// Known CUPTI metrics with a reader's name; others are shown under their key.
struct MetricLabel {
  const char* key;
  const char* label;
};
constexpr MetricLabel kMetricLabels[] = {
    {"duration_us", "kernel time under the profiler (us)"},
    {"achieved_occupancy_pct", "achieved occupancy (% of peak warps)"},
    {"sm_throughput_pct", "SM throughput (% of peak)"},
    {"memory_throughput_pct", "memory throughput (% of peak)"},
    {"dram_throughput_pct", "DRAM throughput (% of peak)"},
    {"dram_bytes_read", "DRAM read"},
    {"dram_bytes_write", "DRAM written"},
    {"l1_hit_rate_pct", "L1 hit rate (%)"},
    {"l2_hit_rate_pct", "L2 hit rate (%)"},
    {"global_load_sectors", "global load sectors"},
    {"global_load_requests", "global load requests"},
    {"global_store_sectors", "global store sectors"},
    {"global_store_requests", "global store requests"},
};

std::string metric_label(const std::string& key) {
  for (const auto& m : kMetricLabels)
    if (key == m.key) return m.label;
  return "`" + key + "`";
}

std::string metric_cell(const KernelMetrics& m, const std::string& key) {
  auto it = m.values.find(key);
  if (it == m.values.end()) return "—";
  double v = it->second;
  if (key.find("bytes") != std::string::npos) return fmt::format("{:.1f} MB", v / 1e6);
  if (key.find("sectors") != std::string::npos || key.find("requests") != std::string::npos || key == "ptxas_kernels")
    return fmt::format("{:.0f}", v);
  return fmt::format("{:.2f}", v);
}

std::string profile(const search::SearchResult& result, const search::CandidateRecord& best) {
  // The winner's record holds the original's counters: its measurement's at the search's start
  // (the search counts the winner alone after it) or, in older results, both variants' from one
  // metrics run. Otherwise the original's own profile from the start of the search.
  const KernelMetrics& before = best.eval.baseline_metrics.status == "ok" ? best.eval.baseline_metrics
                                                                          : result.baseline_profile.baseline_metrics;
  const KernelMetrics& at_start = result.baseline_profile.baseline_metrics;
  const bool before_from_start = &before == &at_start ||
                                 (before.status == "ok" && at_start.status == "ok" && before.values == at_start.values);
  const KernelMetrics& after = best.eval.candidate_metrics;
  std::string out;
  auto status_line = [](const char* who, const KernelMetrics& m) {
    return m.status == "ok" ? std::string() : fmt::format("- {}: hardware counters not collected: {}\n", who, m.status);
  };
  out += status_line("original", before) + status_line("kernelbot", after);
  std::string where = !after.size_label.empty() ? after.size_label : before.size_label;
  if (!where.empty()) out += "- hardware counters measured at " + where + "\n";
  if (before_from_start) out += "- counters of the original from its measurement when the search started\n";
  out += "- counters of the search's winner `" + best.id + "` as the search built it, collected after the search\n";
  std::vector<std::string> keys;
  for (const auto& m : kMetricLabels)
    if (before.values.count(m.key) || after.values.count(m.key)) keys.push_back(m.key);
  std::set<std::string> other;
  for (const auto* m : {&before, &after})
    for (const auto& [k, v] : m->values)
      // `key = k`: clang before 16 (clang-tidy's) cannot capture a structured binding.
      if (std::none_of(std::begin(kMetricLabels), std::end(kMetricLabels),
                       [&key = k](const MetricLabel& l) { return key == l.key; }))
        other.insert(k);
  keys.insert(keys.end(), other.begin(), other.end());
  out += "\n| | original | kernelbot |\n| --- | ---: | ---: |\n";
  for (const auto& k : keys)
    out += "| " + metric_label(k) + " | " + metric_cell(before, k) + " | " + metric_cell(after, k) + " |\n";
  // Compiler facts (ptxas): a 0 register count means ptxas reported nothing, not zero registers.
  auto regs = [](const KernelMetrics& m) {
    return m.registers_per_thread > 0 ? std::to_string(m.registers_per_thread) : std::string("not reported");
  };
  out += fmt::format("| registers per thread (ptxas) | {} | {} |\n", regs(before), regs(after));
  out += fmt::format("| static shared memory per block (bytes) | {} | {} |\n", before.static_shared_bytes,
                     after.static_shared_bytes);
  if (before.dynamic_shared_bytes > 0 || after.dynamic_shared_bytes > 0)
    out += fmt::format("| dynamic shared memory per block (bytes) | {} | {} |\n", before.dynamic_shared_bytes,
                       after.dynamic_shared_bytes);
  out += fmt::format("| local memory per thread (bytes) | {} | {} |\n", before.local_bytes_per_thread,
                     after.local_bytes_per_thread);
  out += fmt::format("| spill stores / loads (bytes) | {} / {} | {} / {} |", before.spill_stores_bytes,
                     before.spill_loads_bytes, after.spill_stores_bytes, after.spill_loads_bytes);
  return out;
}

std::string idea_path(const search::SearchResult& result, const search::CandidateRecord& best) {
  std::string out = "| step | round | idea | family | result |\n| --- | ---: | --- | --- | --- |\n";
  for (const auto* c : result.path_to(best.id)) {
    std::string outcome = c->is_original() ? "the original"
                          : verdict_is_correct(c->verdict())
                              ? fmt::format("{}, {}", to_string(c->verdict()), format_speedup(c->speedup()))
                              : to_string(c->verdict());
    if (c->from_archive) outcome += " (measured in an earlier run, from the archive)";
    std::string idea = c->is_original() ? "—" : markdown_cell(c->idea.text);
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", c->id, c->round, idea,
                       c->idea.family.empty() ? "—" : c->idea.family, outcome);
  }
  out += fmt::format("\nThe search ({} proposer) tried {} candidates in {:.0f} s and stopped: {}.", result.proposer,
                     result.budget.candidates, result.budget.wall_time_s, result.stop_reason);
  return out;
}

}  // namespace

namespace {

// A PR is rendered only from a winner whose spliced text passed its re-verification.
const search::CandidateRecord& verified_winner(const search::SearchResult& result) {
  const auto* best = result.best();
  if (!best) throw Error("the search for '" + result.kernel + "' has no winner to open a PR for");
  if (!result.reverification.ran || !result.reverification.passed)
    throw Error("the PR's text for '" + result.kernel + "' has not passed a re-verification");
  return *best;
}

// Said in every PR: the weaker sandbox is a choice the reviewer should see.
std::string sandbox_sentence(const std::string& sandbox) {
  if (sandbox == "process")
    return "Candidates were compiled and run in the **process sandbox only** (`[verify] sandbox = \"process\"`): a "
           "scrubbed child process, without file-system or network isolation.";
  return "Candidates were compiled and run in the namespace sandbox (bubblewrap): no network, no secrets, the "
         "repository read-only without `.git/` and `.kernelbot/`.";
}

}  // namespace

std::string render_pr_title(const search::SearchResult& result) {
  verified_winner(result);
  return fmt::format("kernelbot: {} {} faster", result.kernel, format_speedup(result.reverification.eval.speedup));
}

namespace {

std::string verdict_line(const std::string& kernel, const EvalResult& measured, const DeviceInfo& d,
                         const std::string& when) {
  return fmt::format(
      "**`{}` is {} faster** (geometric mean over {} size set{}): this PR's file, verified against the original "
      "on {} trials and timed on {} {}.",
      kernel, format_speedup(measured.speedup), measured.timings.size(), measured.timings.size() == 1 ? "" : "s",
      measured.verification.trials, d.name.empty() ? "unnamed GPU" : d.name, when);
}

// The text of `body` between the line `heading` and the next line starting with `next`; npos
// positions when either is missing.
std::pair<size_t, size_t> section_span(const std::string& body, const std::string& heading, const std::string& next) {
  const size_t head = body.find("\n" + heading + "\n");
  if (head == std::string::npos) return {std::string::npos, std::string::npos};
  const size_t start = head + heading.size() + 2;
  const size_t end = body.find("\n" + next, start);
  return {start, end};
}

}  // namespace

std::string rebased_pr_body(const std::string& body, const search::Reverification& record, const std::string& kernel,
                            const std::string& base_branch, const std::string& base_commit) {
  const std::string when = fmt::format("after it was rebased onto `{}` ({})", base_branch, base_commit.substr(0, 12));
  const std::string history = fmt::format(
      "The search measured this change on an earlier base; kernelbot replayed it onto `{}` with a three-way merge, "
      "and this is the merged text measured against the file at that commit.",
      base_branch);
  std::string out = body;
  auto replace_section = [&](const std::string& heading, const std::string& next, const std::string& text) {
    auto [start, end] = section_span(out, heading, next);
    if (start == std::string::npos || end == std::string::npos) return false;
    out.replace(start, end - start, "\n" + text + "\n");
    return true;
  };
  const bool timing = replace_section("### Timing", "### Correctness", timing_table(record.eval));
  const bool evidence = replace_section("### Correctness", "Candidates were compiled and run",
                                        correctness_of(record, when, history));
  const std::string verdict = verdict_line(kernel, record.eval, record.eval.device, when);
  const size_t old_verdict = out.find("**`" + kernel + "` is ");
  if (old_verdict != std::string::npos) {
    size_t end = out.find('\n', old_verdict);
    out.replace(old_verdict, end == std::string::npos ? std::string::npos : end - old_verdict, verdict);
  } else {
    out = verdict + "\n\n" + out;
  }
  // A body this kernelbot did not write (or one a person edited) keeps its text; the new
  // measurement follows it.
  if (!timing || !evidence)
    out += "\n### Re-measured after the rebase\n\n" + timing_table(record.eval) + "\n\n" +
           correctness_of(record, when, history) + "\n";
  return out;
}

std::string render_pr_body(const search::SearchResult& result, const SourceChange& change, const PrContext& ctx) {
  const search::CandidateRecord* best = &verified_winner(result);
  const EvalResult& measured = result.reverification.eval;
  const DeviceInfo& d = measured.device.name.empty() ? result.device : measured.device;
  std::string verdict = verdict_line(ctx.kernel, measured, d, "after the search");
  std::string summary = fmt::format("This changes `{}` only. The winning candidate is `{}`: {}", ctx.source_path,
                                    best->id, best->idea.text.empty() ? "(no idea text)" : best->idea.text);
  if (!change.edits.empty()) {
    summary += "\n\nThe edit:\n";
    for (const auto& e : change.edits) summary += "- " + e + "\n";
  }
  if (!best->variant.defines.empty())
    summary += "\nCompile-time parameters of the winner: `" + join(best->variant.defines, "`, `") + "`.";
  if (best->from_archive)
    summary += "\n\nThe search took this winner from kernelbot's archive (measured in an earlier run on the same GPU "
               "model and source); the numbers below are not that run's but this PR's text re-verified and re-timed "
               "after the search.";
  while (summary.ends_with('\n')) summary.pop_back();
  std::string notes;
  if (!change.notes.empty()) {
    notes = "\n### Needs your attention\n\n";
    for (const auto& n : change.notes) notes += "- " + n + "\n";
  }
  // `kernelbot eval` times a candidate file against the kernel's source in the working tree, so
  // the reviewer stays on the base (the original) and takes the PR's file as the candidate.
  const std::string candidate = "/tmp/" + std::filesystem::path(ctx.source_path).filename().string();
  const std::string head = ctx.head_branch.empty() ? "kernelbot/" + ctx.kernel : ctx.head_branch;
  std::string reproduce = fmt::format(
      "On a checkout of `{}` (the original), with this PR's version of the file as the candidate:\n\n```sh\ngit "
      "fetch origin {}\ngit show FETCH_HEAD:./{} > {}\nkernelbot eval --kernel {} --candidate {}\n```\n\nGPU: {} "
      "(compute capability {}.{}, {} SMs), driver {}, CUDA {}{}.",
      ctx.base_branch, head, ctx.source_path, candidate, ctx.kernel, candidate, d.name, d.cc_major, d.cc_minor,
      d.sm_count, d.driver_version, d.runtime_version,
      d.copy_bandwidth_gbps > 0 ? fmt::format("; measured device copy bandwidth {:.0f} GB/s", d.copy_bandwidth_gbps)
                                : std::string());
  return fill_template(kb::embedded::pr_body_template, {{"VERDICT", verdict},
                                                        {"CHANGE_SUMMARY", summary},
                                                        {"TIMING", timing_table(measured)},
                                                        {"CORRECTNESS", correctness(result, *best)},
                                                        {"PROFILE", profile(result, *best)},
                                                        {"IDEA_PATH", idea_path(result, *best)},
                                                        {"NOTES", notes},
                                                        {"REPRODUCE", reproduce},
                                                        {"KERNELBOT_VERSION", ctx.kernelbot_version},
                                                        {"SANDBOX", sandbox_sentence(ctx.sandbox)}});
}

}  // namespace kb::bot
