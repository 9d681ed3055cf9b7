// GitHub's REST API, the part kernelbot uses: list, open, update and close pull requests, label
// and comment on them. Over libcurl (search/http_client.h), with GitHub's rate limits honoured:
// the primary limit (x-ratelimit-remaining: 0) waits for the reset within a budget, the
// secondary limit (403/429 with Retry-After or "secondary rate limit") and 5xx answers and
// timeouts back off and retry. The token goes in the Authorization header only, never in logs.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/http_client.h"

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
};

// GitHub answered with an error that retrying does not fix, or retries ran out. `message` is
// GitHub's own, with its validation errors.
struct GitHubError : std::runtime_error {
  GitHubError(long http_status, const std::string& what) : std::runtime_error(what), status(http_status) {}
  long status;  // 0 when no HTTP answer arrived
};

// How hard to retry. `sleep` and `random` are injectable so tests of backoff run in no time.
struct GitHubRetryPolicy {
  int max_attempts = 6;               // per request, for 5xx, timeouts and secondary limits
  double base_delay_s = 1;
  double max_delay_s = 60;
  double rate_limit_budget_s = 900;   // the most to wait in total for the primary limit to reset
  double timeout_s = 30;              // one request
  std::function<void(double)> sleep;  // default: sleeps the thread
  std::function<double()> random;     // default: uniform in [0,1)
};

class GitHubClient {
 public:
  // `api_url`: "https://api.github.com" or an Enterprise ".../api/v3"; `repository`: "owner/name".
  GitHubClient(std::string api_url, std::string repository, std::string token, GitHubRetryPolicy policy = {});

  // Open PRs, every page (Link rel="next" followed); with `head_branch`, only those from
  // <owner>:<head_branch>.
  std::vector<GitHubPull> open_pulls(const std::string& head_branch = "");

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
  // Closes a PR after saying why in a comment.
  void close_pull(int64_t number, const std::string& comment_body);

  const std::string& owner() const { return owner_; }
  // Seconds spent waiting on rate limits and backoff so far.
  double waited_s() const { return waited_s_; }

 private:
  search::HttpResponse send(const std::string& method, const std::string& path_or_url, const std::string& body);
  std::string url(const std::string& path) const;

  std::string api_url_;
  std::string repository_;
  std::string owner_;
  std::string token_;
  GitHubRetryPolicy policy_;
  double waited_s_ = 0;
  double rate_limit_waited_s_ = 0;
};

// "<https://api.github.com/...&page=2>; rel=\"next\", <...>; rel=\"last\"" -> the next URL, or "".
std::string link_next(const std::string& link_header);

// "scheme://host[:port]" of a URL, lower-cased: what decides where the token may go. Empty when
// the URL has no scheme or carries credentials before its host.
std::string url_origin(const std::string& url);

}  // namespace kb::bot
