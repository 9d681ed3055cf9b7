// The GitHub REST implementation of Forge: opens a pull request, or updates the bot's open one for
// the same head branch, with retries for GitHub's rate limits and transient failures.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bot/forge.h"
#include "config/config.h"

namespace kb::bot {

// How GitHubForge reaches GitHub and how patient it is.
struct GitHubForgeOptions {
  std::string api_url = "https://api.github.com";  // or a fake's base URL in tests
  std::string repository;                          // "owner/name"
  std::string token;                               // sent as a Bearer token, never logged
  std::vector<std::string> labels;                 // added to every PR's own labels
  bool draft = false;                              // open every PR as a draft
  int64_t max_open_prs = 5;                        // open PRs with a "kernelbot/" head, at most
  double timeout_s = 30;                           // one request, whole transfer
  int max_attempts = 5;                            // per request, the first one included
  double base_delay_s = 1;                         // backoff: base_delay_s * 2^attempt, jittered
  double max_delay_s = 60;
  double max_server_wait_s = 900;  // a rate limit that asks for longer than this is an error
  // Called instead of sleeping, so tests need not wait; empty = really sleep.
  std::function<void(double seconds)> sleep;
};

// The Forge for [github].repository = "owner/name".
class GitHubForge : public Forge {
 public:
  explicit GitHubForge(GitHubForgeOptions options);
  // Options from [github]; the token comes from the variable named by token_env (GITHUB_TOKEN when
  // that one is unset). Throws std::runtime_error naming the variable when there is no token.
  static std::unique_ptr<GitHubForge> from_config(const kb::config::Config& config);

  std::string name() const override { return "github"; }
  PullRequestOutcome open_or_update(const PullRequest& pr) override;

 private:
  struct Reply {
    long status = 0;
    nlohmann::json json;  // null when the body is not JSON
    std::string next_url;  // Link rel="next", "" on the last page
  };
  // Every call to GitHub goes through here: headers, retries, and errors that say what happened.
  // Returns 2xx and 422 replies; throws std::runtime_error for everything else.
  Reply request(const std::string& method, const std::string& target, const nlohmann::json* body);
  Reply request_ok(const std::string& method, const std::string& target, const nlohmann::json* body);
  // The open PR whose head is owner:branch, or a null json.
  nlohmann::json find_open(const std::string& branch);
  int64_t count_open_bot_prs();
  PullRequestOutcome update(const nlohmann::json& existing, const PullRequest& pr);
  void wait(double seconds);

  GitHubForgeOptions options_;
  std::string owner_;
  std::string repo_path_;  // "/repos/owner/name"
  std::mt19937 jitter_{std::random_device{}()};
};

}  // namespace kb::bot
