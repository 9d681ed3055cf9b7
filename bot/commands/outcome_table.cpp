#include "bot/commands/outcome_table.h"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "common/text_table.h"
#include "core/number_format.h"

namespace kb::bot {

void print_outcomes(const std::vector<KernelOutcome>& rows, bool json) {
  if (json) {
    auto j = nlohmann::json::array();
    for (const auto& r : rows)
      j.push_back({{"kernel", r.kernel},
                   {"baseline_us", r.baseline_us},
                   {"best_us", r.best_us},
                   {"speedup", r.speedup},
                   {"result", r.verdict},
                   {"pr", r.pr},
                   {"note", r.note},
                   {"failed", r.failed},
                   {"advisories", r.advisories}});
    // One object, as every command's --json answer (bot/failure_report.h): ok and exit_code first,
    // the error when a kernel failed, then the rows.
    std::string failed;
    for (const auto& r : rows)
      if (r.failed) failed += (failed.empty() ? "" : ", ") + r.kernel;
    nlohmann::json out{{"ok", failed.empty()}, {"exit_code", failed.empty() ? 0 : 1}};
    if (!failed.empty()) out["error"] = {{"kind", "failed"}, {"message", "failed: " + failed}};
    out["kernels"] = j;
    std::cout << out.dump(2) << "\n";
    return;
  }
  TextTable table({"kernel", "original us", "best us", "speedup", "result", "pull request / note"});
  for (const auto& r : rows)
    table.add_row({r.kernel, r.baseline_us > 0 ? fmt::format("{:.2f}", r.baseline_us) : "-",
                   r.best_us > 0 ? fmt::format("{:.2f}", r.best_us) : "-", format_speedup(r.speedup), r.verdict,
                   r.pr.empty() ? r.note : r.pr});
  std::cout << "\n" << table.render();
  // What no PR can change but a person can: verified probes of caller-chosen block sizes.
  for (const auto& r : rows)
    for (const auto& a : r.advisories) std::cout << r.kernel << ": " << a << "\n";
}

bool any_failed(const std::vector<KernelOutcome>& rows) {
  bool failed = false;
  for (const auto& r : rows) failed |= r.failed;
  return failed;
}

}  // namespace kb::bot
