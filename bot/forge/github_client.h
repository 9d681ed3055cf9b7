// GitHub's REST API, the part kernelbot uses: list, open, update and close pull requests, label
// and comment on them. Over libcurl (common/http_client.h), keeping to GitHub's documented rules
// for integrators: one request at a time, at least a second between mutating requests, Retry-After
// honoured, nothing sent while x-ratelimit-remaining is 0 until x-ratelimit-reset (within a
// budget), secondary limits without Retry-After wait a minute, 5xx answers and timeouts back off
// and retry, and no body over GitHub's size limit. The token goes in the Authorization header
// only, never in logs.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/http_client.h"
#include "core/errors.h"

namespace kb::bot {

// A pull request as GitHub reports it (the fields kernelbot reads).
struct GitHubPull {
  int64_t number = 0;
  std::string state;  // "open", "closed"
  std::string title;
  std::string body;
  std::string html_url;
  std::string head_ref;  // branch name, without the owner
  std::string base_ref;
  bool draft = false;
  bool merged = false;    // merged_at is set
  std::string closed_at;  // "" while open
  std::vector<std::string> labels;
};

// A commit of a pull request, as GET /pulls/{n}/commits reports it (the fields kernelbot reads).
struct GitHubCommit {
  std::string sha;
  std::string author_name;  // commit.author: the git identity, not the GitHub account
  std::string author_email;
  std::string committer_email;  // commit.committer: who made the commit object (an amend changes it)
};

// A conversation comment of an issue or PR, as GET /issues/{n}/comments reports it.
struct GitHubComment {
  int64_t id = 0;  // what a reaction or an edit addresses
  std::string body;
  std::string user_login;
  std::string user_type;  // "User", or "Bot" for an app's account (github-actions[bot])
  std::string html_url;
  std::string created_at;
};

// An issue (not a PR) as GET /issues reports it: the fields the dashboard reads.
struct GitHubIssue {
  int64_t number = 0;
  std::string title;
  std::string body;
  std::string html_url;
};

// A reaction of the token's account on a comment, as POST /issues/comments/{id}/reactions
// answers: the one this call added (201), or the one that account had already made (200).
struct GitHubReaction {
  bool created = false;    // this call added it
  int64_t id = 0;          // what a DELETE addresses
  std::string created_at;  // ISO 8601 UTC, as GitHub reports it: when the reaction was first made
};

// A person's access to the repository (GET /collaborators/{user}/permission).
struct GitHubPermission {
  std::string permission = "none";  // admin, write, read or none
  std::string role_name;            // admin, maintain, write, triage, read or a custom role
};

// GitHub answered with an error that retrying does not fix, or retries ran out. `message` is
// GitHub's own, with its validation errors.
struct GitHubError : Error {
  GitHubError(long http_status, const std::string& what) : Error(what), status(http_status) {}
  long status;  // 0 when no HTTP answer arrived
};

// How hard to retry and how far apart to send. `sleep`, `now` and `random` are injectable so
// tests of backoff and spacing run in no time.
struct GitHubRetryPolicy {
  int max_attempts = 6;  // per request, for 5xx, timeouts and secondary limits
  double base_delay_s = 1;
  double max_delay_s = 60;
  double rate_limit_budget_s = 900;    // the most to wait in total for the primary limit to reset
  double timeout_s = 30;               // one request
  double min_mutation_interval_s = 1;  // GitHub: at least a second between POST/PATCH/PUT/DELETE
  double secondary_min_wait_s = 60;    // GitHub: a secondary limit without Retry-After waits a minute
  std::function<void(double)> sleep;   // default: sleeps the thread
  std::function<double()> now;         // monotonic seconds; default: steady_clock
  std::function<double()> random;      // default: uniform in [0,1)
};

class GitHubClient {
 public:
  // `api_url`: "https://api.github.com" or an Enterprise ".../api/v3"; `repository`: "owner/name".
  GitHubClient(std::string api_url, std::string repository, std::string token, GitHubRetryPolicy policy = {});

  // Open PRs, every page (Link rel="next" followed); with `head_branch`, only those from
  // <owner>:<head_branch>.
  std::vector<GitHubPull> open_pulls(const std::string& head_branch = "");
  // The PRs from <owner>:<head_branch> in every state (open, closed, merged), every page.
  std::vector<GitHubPull> all_pulls(const std::string& head_branch);
  // A PR's commits, oldest first (GitHub lists at most 250).
  std::vector<GitHubCommit> pull_commits(int64_t number);

  struct Created {
    GitHubPull pull;
    bool created = true;  // false: GitHub said one already exists for the head; it was updated
  };
  // Opens a PR; when GitHub answers 422 "A pull request already exists", finds that PR and
  // updates its title and body instead.
  Created create_pull(const std::string& title, const std::string& body, const std::string& head,
                      const std::string& base, bool draft);
  GitHubPull update_pull(int64_t number, const std::string& title, const std::string& body);
  void add_labels(int64_t number, const std::vector<std::string>& labels);
  void comment(int64_t number, const std::string& body);
  // The bodies of an issue's or PR's conversation comments, oldest first.
  std::vector<std::string> comments(int64_t number);
  // An issue's or PR's conversation comments with their ids and authors, oldest first.
  std::vector<GitHubComment> issue_comments(int64_t number);
  // What `user` may do on the repository; "none" when GitHub says they are no collaborator (404).
  GitHubPermission collaborator_permission(const std::string& user);
  // Reacts to an issue comment as the token's account: `created` when this call added the
  // reaction (201), not when that account had already reacted so (GitHub answers 200 with the
  // existing reaction, its id and time). One account reacts with one emoji once, so this is the
  // atomic "first one wins" for two runs at once.
  GitHubReaction react_to_comment(int64_t comment_id, const std::string& content);
  // Deletes a reaction from an issue comment; one already gone (404) is not an error.
  void delete_comment_reaction(int64_t comment_id, int64_t reaction_id);
  // The open issues with `label`, oldest first; PRs (which GitHub lists as issues too) left out.
  std::vector<GitHubIssue> open_issues_labeled(const std::string& label);
  GitHubIssue create_issue(const std::string& title, const std::string& body, const std::vector<std::string>& labels);
  void update_issue_body(int64_t number, const std::string& body);
  // Closes an issue (as not planned) after saying why in a comment.
  void close_issue(int64_t number, const std::string& comment_body);
  // Closes a PR after saying why in a comment.
  void close_pull(int64_t number, const std::string& comment_body);

  // Every item of a list endpoint, following Link rel="next" (at most 100 pages). `path` is
  // relative to the repository ("/pulls?state=open") or a full URL.
  std::vector<nlohmann::json> get_pages(const std::string& path);
  // One call of an endpoint this class does not wrap, with the same headers, spacing and retries;
  // the parsed answer (null for an empty one). `body` null sends none.
  nlohmann::json request(const std::string& method, const std::string& path, const nlohmann::json& body = nullptr);

  const std::string& owner() const { return owner_; }
  // Seconds spent waiting on rate limits, spacing and backoff so far.
  double waited_s() const { return waited_s_; }
  // x-ratelimit-remaining of the latest answer that carried it.
  std::optional<int64_t> rate_limit_remaining() const { return rate_limit_remaining_; }

 private:
  HttpResponse send(const std::string& method, const std::string& path_or_url, const std::string& body);
  std::string url(const std::string& path) const;
  void wait(double seconds);
  void wait_before_sending(bool mutating, const std::string& what, double backoff_s);
  void note_rate_limit(const HttpResponse& response);

  std::string api_url_;
  std::string repository_;
  std::string owner_;
  std::string token_;
  GitHubRetryPolicy policy_;
  double waited_s_ = 0;
  double rate_limit_waited_s_ = 0;
  std::mutex sending_;  // one request at a time, whoever calls
  std::optional<double> last_mutation_;
  std::optional<int64_t> rate_limit_remaining_;
  std::optional<double> rate_limit_reset_epoch_;
};

// "<https://api.github.com/...&page=2>; rel=\"next\", <...>; rel=\"last\"" -> the next URL, or "".
std::string link_next(const std::string& link_header);

// "scheme://host[:port]" of a URL, lower-cased: what decides where the token may go. Empty when
// the URL has no scheme or carries credentials before its host.
std::string url_origin(const std::string& url);

}  // namespace kb::bot
