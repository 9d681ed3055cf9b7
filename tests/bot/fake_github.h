// A fake GitHub REST API on the loopback interface, for tests of GitHubForge: it keeps pull requests
// as state, answers the few endpoints the forge calls, and fails on request the way GitHub does.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tests/support/loopback_http_server.h"

namespace kb::testing {

// One pull request as the fake keeps it.
struct FakePullRequest {
  int64_t number = 0;
  std::string title;
  std::string body;
  std::string head;  // branch name in the fake's own repository
  std::string base;
  std::string state = "open";
  std::vector<std::string> labels;
  bool draft = false;
  std::string html_url;
};

// The endpoints the fake serves; faults and call counts are per endpoint.
enum class GitHubEndpoint { list_pulls, create_pull, update_pull, add_labels };

// What the fake answers instead of (or on top of) doing the work, for one call.
struct GitHubFault {
  LoopbackResponse response;     // ignored when `then_serve` is set
  bool then_serve = false;       // do the work and answer it, only after response.delay_s
};

// A stateful fake of GitHub's pulls and labels endpoints for one repository and one token.
class FakeGitHub {
 public:
  FakeGitHub(std::string repository, std::string token);

  std::string base_url() const { return server_->base_url(); }
  std::vector<LoopbackRequest> requests() const { return server_->requests(); }

  // Seeds a pull request; number and html_url are filled in when left empty. Returns the number.
  int64_t add_pull(FakePullRequest pr);
  std::vector<FakePullRequest> pulls() const;
  std::vector<FakePullRequest> open_pulls() const;
  int calls(GitHubEndpoint endpoint) const;

  // The next call to `endpoint` answers with `fault` (queued after earlier ones).
  void inject(GitHubEndpoint endpoint, GitHubFault fault);
  // The next `n` calls answer `status` with GitHub's usual error body.
  void fail_next(GitHubEndpoint endpoint, int n, int status);
  // The next call answers 403 "secondary rate limit" with Retry-After.
  void secondary_rate_limit(GitHubEndpoint endpoint, int retry_after_s);
  // The next create answers 422 "A pull request already exists for owner:branch." and creates nothing.
  void already_exists_on_next_create(const std::string& branch);
  // The next `n` calls do their work but answer only after `delay_s` (a client timeout, a PR that
  // was opened although the client never heard so).
  void delay_next(GitHubEndpoint endpoint, int n, double delay_s);

 private:
  LoopbackResponse handle(const LoopbackRequest& request);
  LoopbackResponse serve(GitHubEndpoint endpoint, const LoopbackRequest& request, int64_t number);
  LoopbackResponse list(const LoopbackRequest& request);
  LoopbackResponse create(const LoopbackRequest& request);
  LoopbackResponse update(const LoopbackRequest& request, int64_t number);
  LoopbackResponse label(const LoopbackRequest& request, int64_t number);
  std::string html_url(int64_t number) const;

  std::string repository_;
  std::string owner_;
  std::string token_;
  mutable std::mutex mutex_;
  std::vector<FakePullRequest> pulls_;
  int64_t next_number_ = 1;
  std::map<GitHubEndpoint, int> calls_;
  std::map<GitHubEndpoint, std::deque<GitHubFault>> faults_;
  std::unique_ptr<LoopbackHttpServer> server_;  // last: it calls handle() until destroyed
};

}  // namespace kb::testing
