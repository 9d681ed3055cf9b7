// The repository's dashboard issue: one issue, labelled `kernelbot: dashboard`, that each run
// rewrites with where every kernel stands (bot/publish/kernel_status.h), and whose checkboxes
// (`- [ ] search <kernel> next run`) a person ticks to have the next run search a kernel that is
// ignored on request. Found by its label (or, if someone removed it, by the invisible marker its
// body starts with), created once, then only updated; two runs that both create one keep the
// oldest and close the other.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "bot/publish/kernel_status.h"
#include "config/config.h"

namespace kb::bot {

class GitHubClient;

inline constexpr const char* kDashboardLabel = "kernelbot: dashboard";
inline constexpr const char* kDashboardTitle = "kernelbot dashboard";
inline constexpr const char* kDashboardMarker = "<!-- kernelbot-dashboard -->";

// The issue's body: `now` (ISO 8601) says when it was written.
std::string render_dashboard(const StatusView& view, const std::string& now);

// The kernels whose `search <kernel> next run` box is ticked in a dashboard body.
std::set<std::string> requested_searches(const std::string& body);

struct DashboardIssue {
  int64_t number = 0;  // 0: none yet
  std::string url;
  std::string body;
  bool created = false;
};

// The dashboard issue, if there is one (the oldest, when a race left two).
DashboardIssue find_dashboard(GitHubClient& client);

// Writes `body` into the dashboard issue, creating it when there is none, and closes any newer
// duplicate with a note.
DashboardIssue publish_dashboard(GitHubClient& client, const std::string& body);

// The run's two dashboard steps, when [github].repository and a token are set; GitHub failing is
// logged, not fatal. Before the searches: the ticked kernels, whose ignore requests are dropped
// so that this run searches them. After: the new body, posted, or in a dry run written to
// <root>/.kernelbot/prs/dashboard.md.
std::set<std::string> dashboard_requests_before_run(const config::Config& config);
void update_dashboard_after_run(const config::Config& config, bool dry_run);

}  // namespace kb::bot
