#include "bot/publish/dashboard.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "bot/forge/forge_factory.h"
#include "bot/forge/github_client.h"
#include "common/clock.h"
#include "common/file_write.h"
#include "common/text.h"
#include "core/number_format.h"
#include "search/archive/ignored_kernels.h"

namespace kb::bot {
namespace {

// A table cell, "-" when there is nothing to say.
std::string dashboard_cell(const std::string& s) { return s.empty() ? "-" : markdown_cell(s); }

std::unique_ptr<GitHubClient> client_for(const config::Config& config) {
  if (config.github.repository.empty()) return nullptr;
  const std::string token = github_token(config.github);
  if (token.empty()) return nullptr;
  return std::make_unique<GitHubClient>(config.github.api_url, config.github.repository, token);
}

}  // namespace

std::string render_dashboard(const StatusView& view, const std::string& now) {
  std::string out = std::string(kDashboardMarker) + "\n";
  out += fmt::format("Where every kernel in `kernelbot.toml` stands, as of kernelbot's run at {}. kernelbot rewrites "
                     "this issue on every run; edits other than the checkboxes are lost.\n\n",
                     now);
  out += "| Kernel | State | Speedup | Verified | Measured | GPU | Pull request |\n|---|---|---|---|---|---|---|\n";
  for (const auto& k : view.kernels)
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", k.kernel, k.state,
                       k.speedup > 0 ? format_speedup(k.speedup) : "-", dashboard_cell(k.verified.substr(0, 60)),
                       dashboard_cell(k.date.substr(0, 10)), dashboard_cell(k.gpu),
                       k.pr_number ? fmt::format("#{}", k.pr_number) : "-");
  std::string declined, ignored, untargeted;
  for (const auto& k : view.kernels) {
    const std::string line = fmt::format("- `{}`: {}\n", k.kernel, k.note);
    if (k.state == "declined before" || (k.state != "ignored" && k.state != "cannot be targeted" && !k.note.empty()))
      declined += line;
    else if (k.state == "ignored") ignored += line;
    else if (k.state == "cannot be targeted") untargeted += line;
  }
  if (!declined.empty()) out += "\n### Declined\n\n" + declined;
  if (!ignored.empty()) out += "\n### Ignored\n\n" + ignored;
  if (!untargeted.empty())
    out += "\n### Cannot be targeted yet\n\nThese need `kernelbot.toml` filled in (`kernelbot config check` lists "
           "the fields):\n\n" +
           untargeted;
  const auto& b = view.spent;
  out += fmt::format("\n### Budget\n\nThe last results spent {} candidate{}, {:.0f} s of search, {} model request{} "
                     "(${:.2f}).\n",
                     b.candidates, b.candidates == 1 ? "" : "s", b.wall_time_s, b.llm_requests,
                     b.llm_requests == 1 ? "" : "s", b.cost_usd);
  out += "\n### Next run\n\nTick a box to have the next run search the kernel even if it is ignored:\n\n";
  for (const auto& k : view.kernels)
    if (k.state != "cannot be targeted") out += fmt::format("- [ ] search `{}` next run\n", k.kernel);
  return out;
}

std::set<std::string> requested_searches(const std::string& body) {
  static const std::regex ticked(R"(^\s*[-*] \[[xX]\] search `([^`]+)` next run\s*$)");
  std::set<std::string> out;
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.ends_with('\r')) line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, ticked)) out.insert(m[1].str());
  }
  return out;
}

namespace {

// Every open dashboard, oldest first: labelled, and starting with the marker.
std::vector<GitHubIssue> dashboards(GitHubClient& client) {
  std::vector<GitHubIssue> out;
  for (auto& i : client.open_issues_labeled(kDashboardLabel))
    if (i.body.starts_with(kDashboardMarker)) out.push_back(std::move(i));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  return out;
}

}  // namespace

DashboardIssue find_dashboard(GitHubClient& client) {
  auto all = dashboards(client);
  if (all.empty()) return {};
  return {all.front().number, all.front().html_url, all.front().body, false};
}

DashboardIssue publish_dashboard(GitHubClient& client, const std::string& body) {
  auto all = dashboards(client);
  int64_t made = 0;
  if (all.empty()) {
    GitHubIssue issue = client.create_issue(kDashboardTitle, body, {kDashboardLabel});
    made = issue.number;
    // Another run may have opened one at the same moment: listed again, the oldest stays.
    all = dashboards(client);
    if (all.empty()) all.push_back(issue);  // a replica that has not seen it yet
  }
  const GitHubIssue& kept = all.front();
  if (kept.number != made) client.update_issue_body(kept.number, body);
  for (size_t i = 1; i < all.size(); ++i)
    client.close_issue(all[i].number, fmt::format("Duplicate of #{}, the dashboard kernelbot keeps.", kept.number));
  spdlog::info("dashboard {}: {}", kept.number == made ? "opened" : "updated", kept.html_url);
  return {kept.number, kept.html_url, body, kept.number == made};
}

std::set<std::string> dashboard_requests_before_run(const config::Config& config) {
  auto client = client_for(config);
  if (!client) return {};
  try {
    auto requested = requested_searches(find_dashboard(*client).body);
    for (const auto& kernel : requested) {
      spdlog::info("{}: the dashboard asks for a search this run", kernel);
      search::IgnoredKernels(config.resolve(config.search.archive)).forget(kernel);
    }
    return requested;
  } catch (const std::exception& e) {
    spdlog::error("the dashboard could not be read: {}; the next run tries again", e.what());
    return {};
  }
}

void update_dashboard_after_run(const config::Config& config, bool dry_run) {
  auto client = client_for(config);
  try {
    const std::string body = render_dashboard(gather_status(config, client.get()), now_iso8601());
    if (dry_run || !client) {
      const auto path = config.root / ".kernelbot" / "prs" / "dashboard.md";
      std::filesystem::create_directories(path.parent_path());
      write_file_atomically(path, body);
      spdlog::info("dashboard written to {}", path.string());
      return;
    }
    publish_dashboard(*client, body);
  } catch (const std::exception& e) {
    spdlog::error("the dashboard could not be updated: {}; the next run tries again", e.what());
  }
}

}  // namespace kb::bot
