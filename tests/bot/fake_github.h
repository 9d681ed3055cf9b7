// A fake GitHub REST API on the loopback HTTP server: the pulls (state=all too, and a PR's
// commits), labels, issue-comment, comment-reaction and collaborator-permission endpoints
// kernelbot uses, with GitHub's behaviour (422 "A pull request already exists" for a
// second open PR on one head, Link pagination, head=owner:branch filtering, auth checks) and
// faults a test queues (secondary rate limit with Retry-After, primary limit, 502, slow answers).
// Its answers are shaped like GitHub's (templates in tests/bot/data/github/, taken from the
// examples in GitHub's OpenAPI description), and every exchange is logged for the check of both
// sides against that description (tests/bot/openapi/).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/bot/exchange_log.h"
#include "tests/support/loopback_http_server.h"

namespace kb::testing {

struct FakePull {
  int64_t number = 0;
  std::string state = "open";
  std::string title, body, head, base;
  bool draft = false;
  std::vector<std::string> labels;
  std::vector<std::string> comments;  // bodies, oldest first (FakeComment has the rest)
  bool merged = false;
  // The PR's commits as GET /pulls/{n}/commits lists them; a test adds them (the fake does not
  // see pushes), e.g. the bot's commit and one a person pushed on top.
  struct Commit {
    std::string sha, author_name, author_email, committer_email;
  };
  std::vector<Commit> commits;
};

// A conversation comment: who wrote it, and the reactions on it ("<login>:<content>", one per
// account and emoji, as GitHub keeps them), each with its id and created_at in `reaction_meta`.
struct FakeComment {
  int64_t id = 0;
  int64_t issue = 0;
  std::string body, user, user_type = "User";
  std::vector<std::string> reactions;
  std::vector<std::pair<int64_t, std::string>> reaction_meta;
};

// A fault served instead of the real answer to the next request matching `method` and a path
// that starts with `path_prefix` ("" matches any).
struct FakeFault {
  std::string method;
  std::string path_prefix;
  LoopbackResponse response;
  // Instead of `response`: do the real work, then answer only after `response.delay_s` (a
  // request that lands on GitHub while the client has already given up on it).
  bool handle_then_delay = false;
};

class FakeGitHub {
 public:
  // `repository`: "owner/name"; requests must carry "Authorization: Bearer <token>".
  FakeGitHub(std::string repository, std::string token, int page_size = 30);

  std::string api_url() const { return server_.base_url(); }
  void add_fault(FakeFault fault);
  // A PR that exists before the test (another kernel's, or the bot's from an earlier run).
  int64_t add_pull(const std::string& head, const std::string& title, const std::string& state = "open");

  // What people do on GitHub between two runs: close (or merge) a PR, label it, push a commit to it.
  void close_pull(int64_t number, bool merged = false);
  void add_label(int64_t number, const std::string& label);
  void add_commit(int64_t number, FakePull::Commit commit);
  // A person's comment on a PR; its id.
  int64_t add_comment(int64_t number, const std::string& user, const std::string& body);
  // A person's access (GET /collaborators/{user}/permission): "admin", "maintain", "write",
  // "triage" or "read". Anyone not set is no collaborator: 404, as GitHub answers.
  void set_permission(const std::string& user, const std::string& role);
  // A reaction the bot's account made at `created_at` ("2026-11-29T08:00:00Z"): the claim of a
  // run that is gone, or of one still at work. Its id.
  int64_t add_bot_reaction(int64_t comment_id, const std::string& content, const std::string& created_at);
  std::vector<FakeComment> comments_on(int64_t number) const;
  // Issues (not PRs): GitHub numbers both in one sequence; here issues count from 1001, so that a
  // PR's number stays its place in pulls().
  std::vector<FakePull> issues() const;
  int64_t add_issue(const std::string& title, const std::string& body, const std::vector<std::string>& labels);

  // The account the token belongs to: what the bot's own comments and reactions are made as.
  static constexpr const char* kBotLogin = "github-actions[bot]";

  std::vector<FakePull> pulls() const;
  std::vector<FakePull> open_pulls_for(const std::string& head) const;
  std::vector<LoopbackRequest> requests() const { return server_.requests(); }
  // Requests with this method whose path starts with `prefix`.
  int count(const std::string& method, const std::string& prefix) const;
  int max_in_flight() const { return server_.max_in_flight(); }
  // x-ratelimit-remaining of the next answer; each answer counts one down, as GitHub's do.
  void set_rate_limit_remaining(int remaining);

 private:
  LoopbackResponse handle(const LoopbackRequest& request);
  LoopbackResponse serve(const LoopbackRequest& request);  // the real behaviour, under mutex_
  LoopbackResponse pulls_list(const LoopbackRequest& request);
  nlohmann::json pull_json(const FakePull& p) const;
  nlohmann::json label_json(const std::string& name) const;
  LoopbackResponse commits_list(const FakePull& p, const LoopbackRequest& request) const;
  nlohmann::json comment_json(const FakeComment& c) const;
  nlohmann::json issue_json(const FakePull& i) const;
  LoopbackResponse issues_list(const LoopbackRequest& request) const;
  LoopbackResponse serve_reaction(const std::string& comment_id, const nlohmann::json& body);
  LoopbackResponse serve_reaction_delete(const std::string& comment_id, const std::string& reaction_id);
  LoopbackResponse serve_permission(const std::string& user) const;
  FakeComment& new_comment(FakePull& p, const std::string& user, const std::string& user_type, const std::string& body);

  std::string repository_, owner_, token_;
  int page_size_;
  nlohmann::json pull_template_, label_template_, comment_template_, commit_template_, reaction_template_,
      permission_template_, issue_template_;
  int rate_limit_remaining_ = 5000;
  std::unique_ptr<ExchangeLog> log_;
  mutable std::mutex mutex_;
  std::vector<FakePull> pulls_;
  std::vector<FakePull> issues_;
  std::vector<FakeComment> comments_;
  std::map<std::string, std::string> permissions_;
  int64_t next_reaction_id_ = 7000;
  std::deque<FakeFault> faults_;
  LoopbackHttpServer server_;  // last: its thread calls handle() on the members above
};

}  // namespace kb::testing
