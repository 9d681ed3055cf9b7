#include "bot/github_forge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "bot/branch_commit.h"

namespace kb::bot {
namespace {

constexpr const char* kBranchPrefix = "kernelbot/";

// "https://api.github.com" -> "https://github.com"; "https://ghe.example.com/api/v3" -> "https://ghe.example.com".
std::string web_url(const std::string& api_url) {
  std::string url = api_url;
  auto api = url.find("://api.");
  if (api != std::string::npos) url.erase(api + 3, 4);
  auto v3 = url.find("/api/v3");
  if (v3 != std::string::npos) url.erase(v3);
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

std::string push_target_for(const config::GithubConfig& github, const GitRepo& repo, bool have_token) {
  std::string url = repo.remote_url(github.remote);
  if (url.empty()) url = github.remote;  // not a remote's name: a URL or a path
  // A local path (a mirror, a test's bare repository) is pushed to as it is: no token goes there.
  const bool network = url.find("://") != std::string::npos || url.rfind("git@", 0) == 0 ||
                       (url.find(':') != std::string::npos && url.find(':') < url.find('/'));
  // The token goes only to [github].repository on the API's own host: .git/config is a file of
  // the checkout, which whatever ran in it could have rewritten.
  if (network && have_token) return web_url(github.api_url) + "/" + github.repository + ".git";
  return github.remote;
}

GitHubForge::GitHubForge(config::GithubConfig github, GitRepo repo, std::string push_target, std::string token,
                         std::unique_ptr<GitHubClient> client)
    : github_(std::move(github)),
      repo_(std::move(repo)),
      push_target_(std::move(push_target)),
      token_(std::move(token)),
      client_(std::move(client)) {}

PullRequestOutcome GitHubForge::open_or_update(const PullRequest& pr) {
  PullRequestOutcome outcome;
  auto existing = client_->open_pulls(pr.head);
  std::sort(existing.begin(), existing.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  if (existing.empty()) {
    // The cap counts the bot's open PRs for other kernels; updating our own never needs a slot.
    auto open = client_->open_pulls();
    auto bots = std::count_if(open.begin(), open.end(),
                              [](const GitHubPull& p) { return p.head_ref.rfind(kBranchPrefix, 0) == 0; });
    if (bots >= github_.max_open_prs) {
      outcome.published = false;
      outcome.note = fmt::format("not opened: {} kernelbot PRs are open, [github].max_open_prs is {}; the winner is "
                                 "saved, publish it later with `kernelbot pr`",
                                 bots, github_.max_open_prs);
      spdlog::warn("{}", outcome.note);
      return outcome;
    }
  }

  outcome.commit = commit_pull_request(repo_, pr);
  spdlog::info("committed {} on {}; pushing", outcome.commit.substr(0, 12), pr.head);
  repo_.push(push_target_, pr.head, token_);  // forced: an update replaces the earlier commit

  GitHubPull pull;
  if (!existing.empty()) {
    pull = client_->update_pull(existing.front().number, pr.title, pr.body);
    outcome.created = false;
  } else {
    auto created = client_->create_pull(pr.title, pr.body, pr.head, pr.base, pr.draft);
    pull = created.pull;
    outcome.created = created.created;
  }
  client_->add_labels(pull.number, pr.labels);
  // Two open PRs for one branch (a race between two runs): keep the oldest, close the others.
  for (size_t i = 1; i < existing.size(); ++i) {
    client_->close_pull(existing[i].number,
                        fmt::format("Superseded by #{}, which carries the latest verified winner for this branch.",
                                    pull.number));
    outcome.note += fmt::format("{}closed #{} as a duplicate of #{}", outcome.note.empty() ? "" : "; ",
                                existing[i].number, pull.number);
  }
  outcome.number = pull.number;
  outcome.url = pull.html_url;
  spdlog::info("{} pull request #{}: {}", outcome.created ? "opened" : "updated", pull.number, pull.html_url);
  return outcome;
}

}  // namespace kb::bot
