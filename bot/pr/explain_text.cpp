#include "bot/pr/explain_text.h"

#include <fmt/format.h>

#include <map>

#include "common/text.h"
#include "core/number_format.h"

namespace kb::bot {

std::string reverification_table(const search::Reverification& r) {
  if (r.eval.timings.empty()) return "";
  std::string out = "| Size | Original | This PR | Speedup |\n|---|---|---|---|\n";
  for (const auto& t : r.eval.timings)
    out += fmt::format("| {} | {} us | {} us | {} |\n", markdown_cell(t.size_label), format_us(t.baseline.median_us),
                       format_us(t.candidate.median_us), format_speedup(t.speedup));
  return out;
}

std::string explain_text(const search::SearchResult& result) {
  std::string out =
      fmt::format("How the {} search on {} reached this change ({} round{}, {} candidate{}, stopped: {}):\n\n",
                  result.proposer.empty() ? "kernelbot" : result.proposer,
                  result.device.name.empty() ? "the GPU" : result.device.name, result.rounds_run,
                  result.rounds_run == 1 ? "" : "s", result.tree.size() - (result.tree.empty() ? 0 : 1),
                  result.tree.size() == 2 ? "" : "s", result.stop_reason.empty() ? "-" : result.stop_reason);
  if (const auto* best = result.best()) {
    out += "| Step | Idea | Verdict | Speedup |\n|---|---|---|---|\n";
    for (const auto* r : result.path_to(best->id)) {
      if (r->is_original()) continue;
      out += fmt::format("| {} | {} | {} | {} |\n", r->id, markdown_cell(r->idea.text), to_string(r->verdict()),
                         format_speedup(r->speedup()));
    }
    if (!best->idea.rationale.empty())
      out += fmt::format("\nWhy the winning idea should help: {}\n", best->idea.rationale);
  } else {
    out += "The search found nothing faster beyond the noise.\n";
  }
  std::map<std::string, int> verdicts;
  for (const auto& r : result.tree)
    if (!r.is_original()) ++verdicts[to_string(r.verdict())];
  if (!verdicts.empty()) {
    out += "\nEvery candidate's verdict:";
    for (const auto& [v, n] : verdicts) out += fmt::format(" {} {};", v, n);
    out.back() = '\n';
  }
  const auto& r = result.reverification;
  if (r.ran) {
    out += fmt::format("\nThe PR's own file, `{}`, re-verified by `{}` at {} on {}: {}.\n", r.path, r.by, r.at,
                       r.eval.device.name.empty() ? "the GPU" : r.eval.device.name,
                       r.passed ? "passed" : "did not pass: " + r.failure);
    if (!r.eval.timings.empty()) out += "\n" + reverification_table(r);
  } else {
    out += "\nThe PR's file has no re-verification record in the archive.\n";
  }
  return out;
}

}  // namespace kb::bot
