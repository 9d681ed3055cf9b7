#include "bot/publish/kernel_status.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "bot/change/result_store.h"
#include "bot/forge/github_client.h"
#include "bot/publish/publish.h"
#include "common/clock.h"
#include "common/file_io.h"
#include "search/archive/declined_changes.h"
#include "search/archive/ignored_kernels.h"

namespace kb::bot {
namespace {

std::string file_date(const std::filesystem::path& path) {
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return "";
  const auto sys = std::chrono::file_clock::to_sys(t);
  return iso8601_utc(std::chrono::system_clock::to_time_t(sys));
}

// The last result, if any: its speedup, record, date and GPU.
void read_last_result(const config::Config& config, KernelStatus& s) {
  const auto dir = results_directory(config.root, s.kernel);
  if (!std::filesystem::exists(dir / "result.json")) {
    s.state = "not searched yet";
    return;
  }
  search::SearchResult r;
  try {
    r = load_result(config.root, s.kernel);
  } catch (const std::exception& e) {
    s.state = "not searched yet";
    s.note = e.what();
    return;
  }
  s.budget = r.budget;
  s.gpu = r.device.name;
  s.date = file_date(dir / "result.json");
  const auto& re = r.reverification;
  if (re.ran) {
    s.verified = re.passed ? "passed" : "failed: " + re.failure;
    if (!re.at.empty()) s.date = re.at;
    if (!re.eval.device.name.empty()) s.gpu = re.eval.device.name;
  }
  const auto* best = pr_worthy_winner(config, r);
  if (!best) {
    s.state = "no faster kernel";
    return;
  }
  s.speedup = re.ran && re.passed ? re.eval.speedup : best->speedup();
  s.state = "winner, no PR";
}

std::string ignored_note(const config::Config& config, const config::KernelSpec& spec) {
  if (is_ignored_kernel(config, spec.name)) return "listed in [github].ignore_kernels";
  if (!std::filesystem::exists(config.resolve(config.search.archive))) return "";  // status writes nothing
  try {
    auto row = search::IgnoredKernels(config.resolve(config.search.archive)).of(spec.name);
    if (!row) return "";
    // Read-only here: the next run forgets a request whose source has changed.
    if (search::source_fingerprint(read_text_file(config.resolve(spec.source))) != row->source_sha256) return "";
    return fmt::format("@{} asked to ignore it until its source changes ({})", row->by, row->url);
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

StatusView gather_status(const config::Config& config, GitHubClient* client) {
  StatusView view;
  std::map<std::string, GitHubPull> open;  // head branch -> the bot's PR
  if (!client) {
    view.forge_note = config.github.repository.empty() ? "no [github].repository: PRs are not looked up"
                                                       : "no GitHub token: PRs are not looked up";
  } else {
    try {
      for (const auto& p : client->open_pulls())
        if (p.head_ref.starts_with("kernelbot/") && !open.count(p.head_ref)) open[p.head_ref] = p;
      view.forge_asked = true;
    } catch (const std::exception& e) {
      view.forge_note = std::string("GitHub could not be asked: ") + e.what();
      spdlog::warn("{}", view.forge_note);
    }
  }
  for (const auto& spec : config.kernels) {
    KernelStatus s;
    s.kernel = spec.name;
    read_last_result(config, s);
    if (auto p = open.find("kernelbot/" + spec.name); p != open.end()) {
      s.pr_number = p->second.number;
      s.pr_url = p->second.html_url;
      s.state = "PR open";
    }
    if (!spec.unfinished.empty()) {
      std::string fields;
      for (const auto& u : spec.unfinished)
        fields += fmt::format("{}{} ({}:{})", fields.empty() ? "" : ", ", u.field, u.pos.file, u.pos.line);
      s.state = "cannot be targeted";
      s.note = "fill in the fields still \"TODO\": " + fields;
    } else if (std::string why = ignored_note(config, spec); !why.empty()) {
      s.state = "ignored";
      s.note = why;
    } else if (s.pr_number == 0 && std::filesystem::exists(config.resolve(config.search.archive))) {
      try {
        auto declined = search::DeclinedChanges(config.resolve(config.search.archive)).of(spec.name);
        if (!declined.empty()) {
          const auto& d = declined.back();
          if (s.state == "winner, no PR") s.state = "declined before";
          s.note = fmt::format("#{} was closed without merging{}", d.number,
                               d.closed_at.empty() ? "" : " on " + d.closed_at.substr(0, 10));
        }
      } catch (const std::exception&) {
        // The archive is memory, not a gate.
      }
    }
    view.spent.candidates += s.budget.candidates;
    view.spent.wall_time_s += s.budget.wall_time_s;
    view.spent.prompt_tokens += s.budget.prompt_tokens;
    view.spent.completion_tokens += s.budget.completion_tokens;
    view.spent.cost_usd += s.budget.cost_usd;
    view.spent.llm_requests += s.budget.llm_requests;
    view.kernels.push_back(std::move(s));
  }
  return view;
}

}  // namespace kb::bot
