#include "bot/pr_body.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common/number_format.h"
#include "common/text_template.h"

namespace kb::embedded {
extern const char* const pr_body_template;
}

namespace kb::bot {
namespace {

std::string us(double v) { return format_us(v) + " us"; }
std::string pct(double fraction) { return format_fraction_percent(fraction); }

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
  bool above_floor = false;
  for (const auto& t : best.eval.timings)
    above_floor = above_floor || (t.floor_us > 0 && (t.baseline_pct_of_floor > 100 || t.candidate_pct_of_floor > 100));
  if (above_floor)
    out += "\nAbove 100% of the roofline floor: the floor divides the spec's *estimated* bytes (`[[kernel]].bytes`, by "
           "default inputs read once and outputs written once) by the measured bandwidth, so a kernel that moves less "
           "(a gather, a cache-resident input) runs above it. It is advice: it decides no verdict.\n";
  const auto& first = best.eval.timings.front();
  out += fmt::format(
      "\nMedians of cold samples (L2 {} before each), original and candidate interleaved in one process; "
      "quartiles of the first size: {} – {} before, {} – {} after.",
      first.baseline.l2_flushed ? "flushed" : "not flushed", us(first.baseline.q1_us), us(first.baseline.q3_us),
      us(first.candidate.q1_us), us(first.candidate.q3_us));
  return out;
}

// Text for one markdown table cell: pipes escaped, lines joined.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
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
  // Before and after from one metrics run when the winner had one (same size, same process);
  // otherwise the original's own profile from the start of the search.
  const KernelMetrics& before =
      best.eval.baseline_metrics.status == "ok" ? best.eval.baseline_metrics : result.baseline_profile.baseline_metrics;
  const KernelMetrics& after = best.eval.candidate_metrics;
  std::string out;
  auto status_line = [](const char* who, const KernelMetrics& m) {
    return m.status == "ok" ? std::string() : fmt::format("- {}: hardware counters not collected: {}\n", who, m.status);
  };
  out += status_line("original", before) + status_line("kernelbot", after);
  std::string where = !after.size_label.empty() ? after.size_label : before.size_label;
  if (!where.empty()) out += "- hardware counters measured at " + where + "\n";
  std::vector<std::string> keys;
  for (const auto& m : kMetricLabels)
    if (before.values.count(m.key) || after.values.count(m.key)) keys.push_back(m.key);
  std::set<std::string> other;
  for (const auto* m : {&before, &after})
    for (const auto& [k, v] : m->values)
      if (std::none_of(std::begin(kMetricLabels), std::end(kMetricLabels), [&](const MetricLabel& l) { return k == l.key; }))
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
    std::string outcome = c->id == "baseline" ? "the original"
                          : verdict_is_correct(c->verdict)
                              ? fmt::format("{}, {:.2f}x", to_string(c->verdict), c->speedup)
                              : to_string(c->verdict);
    if (c->from_archive) outcome += " (measured in an earlier run, from the archive)";
    std::string idea = c->id == "baseline" ? "—" : cell(c->idea.text);
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

namespace {

// Said in every PR: the weaker sandbox is a choice the reviewer should see.
std::string sandbox_sentence(const std::string& sandbox) {
  if (sandbox == "process")
    return "Candidates were compiled and run in the **process sandbox only** (`[verify] sandbox = \"process\"`): a "
           "scrubbed child process, without file-system or network isolation.";
  return "Candidates were compiled and run in the namespace sandbox (bubblewrap): no network, no secrets, the "
         "repository read-only without `.git/` and `.kernelbot/`.";
}

}  // namespace

std::string render_pr_body(const search::SearchResult& result, const SourceChange& change, const PrContext& ctx) {
  const auto* best = result.best();
  if (!best) throw std::invalid_argument("the search for '" + result.kernel + "' has no winner to open a PR for");
  const DeviceInfo& d = result.device;
  std::string verdict = fmt::format(
      "**`{}` is {:.2f}x faster** (geometric mean over {} size set{}), verified against the original on {} trials, "
      "measured on {}.",
      ctx.kernel, best->speedup, best->eval.timings.size(), best->eval.timings.size() == 1 ? "" : "s",
      best->eval.verification.trials, d.name.empty() ? "unnamed GPU" : d.name);
  std::string summary = fmt::format("This changes `{}` only. The winning candidate is `{}`: {}", ctx.source_path,
                                    best->id, best->idea.text.empty() ? "(no idea text)" : best->idea.text);
  if (!change.edits.empty()) {
    summary += "\n\nThe edit:\n";
    for (const auto& e : change.edits) summary += "- " + e + "\n";
  }
  if (!best->variant.defines.empty())
    summary += "\nCompile-time parameters of the winner: `" + join(best->variant.defines, "`, `") + "`.";
  if (best->from_archive)
    summary += "\n\nThis winner was measured in an earlier run on the same GPU model and source (kernelbot's archive); "
               "the numbers below are from that run.";
  while (!summary.empty() && summary.back() == '\n') summary.pop_back();
  std::string notes;
  if (!change.notes.empty()) {
    notes = "\n### Needs your attention\n\n";
    for (const auto& n : change.notes) notes += "- " + n + "\n";
  }
  std::string reproduce = fmt::format(
      "```sh\nkernelbot eval --kernel {} --candidate {}\n```\n\nGPU: {} (compute capability {}.{}, {} SMs), driver "
      "{}, CUDA {}{}.",
      ctx.kernel, ctx.candidate_path, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, d.runtime_version,
      d.copy_bandwidth_gbps > 0 ? fmt::format("; measured device copy bandwidth {:.0f} GB/s", d.copy_bandwidth_gbps)
                                : std::string());
  return fill_template(kb::embedded::pr_body_template,
                               {{"VERDICT", verdict},
                                {"CHANGE_SUMMARY", summary},
                                {"TIMING", timing_table(*best)},
                                {"CORRECTNESS", correctness(*best)},
                                {"PROFILE", profile(result, *best)},
                                {"IDEA_PATH", idea_path(result, *best)},
                                {"NOTES", notes},
                                {"REPRODUCE", reproduce},
                                {"KERNELBOT_VERSION", ctx.kernelbot_version},
                                {"SANDBOX", sandbox_sentence(ctx.sandbox)}});
}

}  // namespace kb::bot
