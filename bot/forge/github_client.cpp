#include "bot/forge/github_client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "bot/cli/version.h"
#include "bot/forge/github_body_limit.h"
#include "common/text.h"

namespace kb::bot {
namespace {

using nlohmann::json;

std::string percent_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

GitHubPull pull_from_json(const json& j) {
  GitHubPull p;
  p.number = j.value("number", int64_t{0});
  p.state = j.value("state", "");
  p.title = j.value("title", "");
  p.body = j.contains("body") && j["body"].is_string() ? j["body"].get<std::string>() : "";
  p.html_url = j.value("html_url", "");
  p.draft = j.value("draft", false);
  p.merged = j.contains("merged_at") && j["merged_at"].is_string();
  p.closed_at = j.contains("closed_at") && j["closed_at"].is_string() ? j["closed_at"].get<std::string>() : "";
  if (j.contains("labels") && j["labels"].is_array())
    for (const auto& l : j["labels"])
      if (l.is_object() && l.contains("name") && l["name"].is_string()) p.labels.push_back(l["name"]);
  if (j.contains("head") && j["head"].is_object()) p.head_ref = j["head"].value("ref", "");
  if (j.contains("base") && j["base"].is_object()) p.base_ref = j["base"].value("ref", "");
  return p;
}

json parse(const HttpResponse& r, const std::string& what) {
  try {
    return json::parse(r.body);
  } catch (const json::exception&) {
    throw GitHubError(r.status, "GitHub " + what + ": the answer is not JSON (HTTP " + std::to_string(r.status) + ")");
  }
}

// GitHub's message and its validation errors: "Validation Failed: A pull request already exists for o:b."
std::string github_message(const HttpResponse& r) {
  try {
    json j = json::parse(r.body);
    std::string msg = j.value("message", "");
    if (j.contains("errors") && j["errors"].is_array())
      for (const auto& e : j["errors"]) {
        // An error without a message names the field: {"resource":"Label","field":"color","code":"invalid"}.
        std::string field = e.is_object()
                                ? e.value("resource", "") + (e.contains("field") ? "." + e.value("field", "") : "")
                                : "";
        std::string m = e.is_object()   ? e.value("message", (field.empty() ? "" : field + " ") + e.value("code", ""))
                        : e.is_string() ? e.get<std::string>()
                                        : "";
        if (!m.empty()) msg += (msg.empty() ? "" : ": ") + m;
      }
    return msg.empty() ? r.body.substr(0, 300) : msg;
  } catch (const json::exception&) {
    return r.body.substr(0, 300);
  }
}

bool contains_ci(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

}  // namespace

std::string link_next(const std::string& link) {
  // Entries are "<url>; rel=\"name\"" separated by commas; URLs contain no '>'.
  size_t pos = 0;
  while ((pos = link.find('<', pos)) != std::string::npos) {
    size_t close = link.find('>', pos);
    if (close == std::string::npos) break;
    size_t next_entry = link.find('<', close);
    std::string params = link.substr(close + 1,
                                     next_entry == std::string::npos ? std::string::npos : next_entry - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
      return link.substr(pos + 1, close - pos - 1);
    pos = close;
  }
  return "";
}

GitHubClient::GitHubClient(std::string api_url, std::string repository, std::string token, GitHubRetryPolicy policy)
    : api_url_(std::move(api_url)),
      repository_(std::move(repository)),
      token_(std::move(token)),
      policy_(std::move(policy)) {
  while (api_url_.ends_with('/')) api_url_.pop_back();
  owner_ = repository_.substr(0, repository_.find('/'));
  if (!policy_.sleep) policy_.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  if (!policy_.now)
    policy_.now = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
  if (!policy_.random) {
    auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
    policy_.random = [engine] { return std::uniform_real_distribution<double>(0, 1)(*engine); };
  }
}

std::string url_origin(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  const size_t host_end = url.find_first_of("/?#", scheme_end + 3);
  std::string origin = url.substr(0, host_end);
  // user:password@ before the host would make "api.github.com@evil.example" look like the API.
  if (origin.find('@') != std::string::npos) return "";
  return lower(origin);
}

std::string GitHubClient::url(const std::string& path) const {
  if (path.starts_with("http://") || path.starts_with("https://")) {
    // A URL from a response (a Link header's next page) carries the token only to the API host.
    if (url_origin(path).empty() || url_origin(path) != url_origin(api_url_))
      throw GitHubError(0, "GitHub: refusing to send the token to " + path +
                               ": URLs from responses are followed only on " + url_origin(api_url_) +
                               " ([github].api_url)");
    return path;
  }
  return api_url_ + "/repos/" + repository_ + path;
}

void GitHubClient::wait(double seconds) {
  policy_.sleep(seconds);
  waited_s_ += seconds;
}

void GitHubClient::note_rate_limit(const HttpResponse& response) {
  std::string remaining = response.header("x-ratelimit-remaining");
  if (remaining.empty()) return;
  rate_limit_remaining_ = std::strtoll(remaining.c_str(), nullptr, 10);
  std::string reset = response.header("x-ratelimit-reset");
  rate_limit_reset_epoch_ = reset.empty() ? std::nullopt : std::optional<double>(std::strtod(reset.c_str(), nullptr));
}

// GitHub's rules for integrators: no request while the primary limit is spent (until its reset,
// which an earlier answer announced), and mutating requests at least a second apart. A retry's
// backoff and the spacing overlap: one wait, the longer of the two.
void GitHubClient::wait_before_sending(bool mutating, const std::string& what, double backoff_s) {
  if (rate_limit_remaining_ == 0 && rate_limit_reset_epoch_) {
    double wait_s = *rate_limit_reset_epoch_ - static_cast<double>(std::time(nullptr)) + 1;
    if (wait_s > 0) {
      if (rate_limit_waited_s_ + wait_s > policy_.rate_limit_budget_s)
        throw GitHubError(0, "GitHub " + what + ": not sent: the API rate limit is spent and resets in " +
                                 std::to_string(static_cast<int64_t>(wait_s)) + " s, beyond the " +
                                 std::to_string(static_cast<int64_t>(policy_.rate_limit_budget_s)) +
                                 " s this run may wait");
      spdlog::warn("GitHub rate limit spent (x-ratelimit-remaining: 0); waiting {:.0f} s for its reset", wait_s);
      wait(wait_s);
      rate_limit_waited_s_ += wait_s;
    }
    rate_limit_remaining_.reset();
  }
  double need = backoff_s;
  if (mutating && last_mutation_)
    need = std::max(need, policy_.min_mutation_interval_s - (policy_.now() - *last_mutation_));
  if (need > 0) wait(need);
}

HttpResponse GitHubClient::send(const std::string& method, const std::string& path_or_url, const std::string& body) {
  std::lock_guard serial(sending_);
  const bool mutating = method != "GET" && method != "HEAD";
  HttpRequest request;
  request.method = method;
  request.url = url(path_or_url);
  request.body = body;
  request.timeout_s = policy_.timeout_s;
  request.headers = {{"Accept", "application/vnd.github+json"},
                     {"X-GitHub-Api-Version", "2022-11-28"},
                     {"User-Agent", std::string("kernelbot/") + kVersion}};
  if (!token_.empty()) request.headers.emplace_back("Authorization", "Bearer " + token_);
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  const std::string what = method + " " + request.url;

  double backoff_s = 0;  // what the last failure asks to wait before the next attempt
  for (int attempt = 0;; ++attempt) {
    const bool last = attempt + 1 >= policy_.max_attempts;
    HttpResponse response;
    wait_before_sending(mutating, what, backoff_s);
    try {
      response = http_send(request);
      if (mutating) last_mutation_ = policy_.now();  // the gap is counted from the answer
    } catch (const HttpTransportError& e) {
      if (mutating) last_mutation_ = policy_.now();
      if (last)
        throw GitHubError(0, "GitHub " + what + ": no answer after " + std::to_string(attempt + 1) +
                                 " attempts: " + e.what());
      double delay = backoff_delay_s(attempt, policy_.base_delay_s, policy_.max_delay_s, std::nullopt,
                                     policy_.random());
      spdlog::warn("GitHub {}: {}; retrying in {:.1f} s", what, e.timed_out ? "timed out" : e.what(), delay);
      backoff_s = delay;
      continue;
    }
    note_rate_limit(response);
    if (response.status >= 200 && response.status < 300) return response;

    const std::string message = github_message(response);
    const bool limited = response.status == 403 || response.status == 429;
    if (limited && response.header("x-ratelimit-remaining") == "0") {
      // The primary limit: nothing succeeds before the reset, so wait for it if the budget allows.
      double reset_wait = retry_after_seconds(response, RateLimitHeaders::github).value_or(60) + 1;
      if (rate_limit_waited_s_ + reset_wait > policy_.rate_limit_budget_s || last)
        throw GitHubError(response.status, "GitHub " + what + ": API rate limit exhausted; it resets in " +
                                               std::to_string(static_cast<int64_t>(reset_wait)) + " s, beyond the " +
                                               std::to_string(static_cast<int64_t>(policy_.rate_limit_budget_s)) +
                                               " s this run may wait (" + message + ")");
      spdlog::warn("GitHub rate limit reached; waiting {:.0f} s for its reset", reset_wait);
      wait(reset_wait);
      rate_limit_waited_s_ += reset_wait;
      rate_limit_remaining_.reset();  // waited for the reset already
      backoff_s = 0;
      continue;
    }
    const bool secondary = limited && (!response.header("retry-after").empty() ||
                                       contains_ci(message, "secondary rate limit") || response.status == 429);
    if ((secondary || response.status >= 500) && !last) {
      // Retry-After when given; for a secondary limit without it GitHub asks for at least a minute.
      std::optional<double> server_wait = retry_after_seconds(response, RateLimitHeaders::github);
      if (secondary && !server_wait) server_wait = policy_.secondary_min_wait_s;
      double delay = backoff_delay_s(attempt, policy_.base_delay_s, policy_.max_delay_s, server_wait, policy_.random());
      spdlog::warn("GitHub {}: HTTP {}{}; retrying in {:.1f} s", what, response.status,
                   secondary ? " (secondary rate limit)" : "", delay);
      backoff_s = delay;
      continue;
    }
    std::string hint;
    if (response.status == 401) hint = " (is the token valid?)";
    else if (response.status == 403 && !secondary)
      hint = " (does the token have contents: write and pull-requests: write?)";
    else if (response.status == 404) hint = " (is [github].repository right, and can the token see it?)";
    throw GitHubError(response.status, "GitHub " + what + ": HTTP " + std::to_string(response.status) + ": " + message +
                                           hint +
                                           (secondary || response.status >= 500
                                                ? " (gave up after " + std::to_string(attempt + 1) + " attempts)"
                                                : ""));
  }
}

std::vector<json> GitHubClient::get_pages(const std::string& first) {
  std::vector<json> items;
  std::string path = first;
  // Bounded: 100 pages of 100 items is beyond any repository kernelbot works on.
  for (int page = 0; page < 100 && !path.empty(); ++page) {
    auto response = send("GET", path, "");
    json j = parse(response, "GET " + path);
    if (!j.is_array()) throw GitHubError(response.status, "GitHub GET " + path + ": expected a JSON array");
    for (auto& item : j) items.push_back(std::move(item));
    path = link_next(response.header("link"));
  }
  return items;
}

json GitHubClient::request(const std::string& method, const std::string& path, const json& body) {
  auto response = send(method, path, body.is_null() ? "" : body.dump());
  return response.body.empty() ? json() : parse(response, method + " " + path);
}

std::vector<GitHubPull> GitHubClient::open_pulls(const std::string& head_branch) {
  std::string path = "/pulls?state=open&per_page=100";
  if (!head_branch.empty()) path += "&head=" + percent_encode(owner_ + ":" + head_branch);
  std::vector<GitHubPull> out;
  for (const auto& p : get_pages(path)) {
    GitHubPull pull = pull_from_json(p);
    if (head_branch.empty() || pull.head_ref == head_branch) out.push_back(pull);
  }
  return out;
}

std::vector<GitHubPull> GitHubClient::all_pulls(const std::string& head_branch) {
  std::vector<GitHubPull> out;
  for (const auto& p : get_pages("/pulls?state=all&per_page=100&head=" + percent_encode(owner_ + ":" + head_branch))) {
    GitHubPull pull = pull_from_json(p);
    if (pull.head_ref == head_branch) out.push_back(pull);
  }
  return out;
}

std::vector<GitHubCommit> GitHubClient::pull_commits(int64_t number) {
  std::vector<GitHubCommit> out;
  for (const auto& c : get_pages("/pulls/" + std::to_string(number) + "/commits?per_page=100")) {
    GitHubCommit commit;
    // GitHub sends null for fields it does not know; value() would throw on those.
    auto text = [](const json& j, const char* key) {
      return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    commit.sha = text(c, "sha");
    if (c.contains("commit") && c["commit"].is_object() && c["commit"].contains("author")) {
      commit.author_name = text(c["commit"]["author"], "name");
      commit.author_email = text(c["commit"]["author"], "email");
    }
    if (c.contains("commit") && c["commit"].is_object() && c["commit"].contains("committer"))
      commit.committer_email = text(c["commit"]["committer"], "email");
    out.push_back(commit);
  }
  return out;
}

std::vector<std::string> GitHubClient::comments(int64_t number) {
  std::vector<std::string> out;
  for (const auto& c : get_pages("/issues/" + std::to_string(number) + "/comments?per_page=100"))
    if (c.is_object() && c.contains("body") && c["body"].is_string()) out.push_back(c["body"].get<std::string>());
  return out;
}

std::vector<GitHubComment> GitHubClient::issue_comments(int64_t number) {
  std::vector<GitHubComment> out;
  for (const auto& c : get_pages("/issues/" + std::to_string(number) + "/comments?per_page=100")) {
    if (!c.is_object()) continue;
    GitHubComment comment;
    comment.id = c.value("id", int64_t{0});
    comment.body = c.contains("body") && c["body"].is_string() ? c["body"].get<std::string>() : "";
    comment.html_url = c.value("html_url", "");
    comment.created_at = c.value("created_at", "");
    if (c.contains("user") && c["user"].is_object()) {
      comment.user_login = c["user"].value("login", "");
      comment.user_type = c["user"].value("type", "");
    }
    out.push_back(std::move(comment));
  }
  return out;
}

namespace {

GitHubIssue issue_from_json(const json& j) {
  GitHubIssue i;
  i.number = j.value("number", int64_t{0});
  i.title = j.value("title", "");
  i.body = j.contains("body") && j["body"].is_string() ? j["body"].get<std::string>() : "";
  i.html_url = j.value("html_url", "");
  return i;
}

}  // namespace

std::vector<GitHubIssue> GitHubClient::open_issues_labeled(const std::string& label) {
  std::vector<GitHubIssue> out;
  for (const auto& j :
       get_pages("/issues?state=open&sort=created&direction=asc&per_page=100&labels=" + percent_encode(label)))
    if (j.is_object() && !j.contains("pull_request")) out.push_back(issue_from_json(j));
  return out;
}

GitHubIssue GitHubClient::create_issue(const std::string& title, const std::string& body,
                                       const std::vector<std::string>& labels) {
  json request = {{"title", title}, {"body", fit_github_body(body)}, {"labels", labels}};
  return issue_from_json(parse(send("POST", "/issues", request.dump()), "create issue"));
}

void GitHubClient::update_issue_body(int64_t number, const std::string& body) {
  send("PATCH", "/issues/" + std::to_string(number), json{{"body", fit_github_body(body)}}.dump());
}

void GitHubClient::close_issue(int64_t number, const std::string& comment_body) {
  if (!comment_body.empty()) comment(number, comment_body);
  send("PATCH", "/issues/" + std::to_string(number), json{{"state", "closed"}, {"state_reason", "not_planned"}}.dump());
}

GitHubPermission GitHubClient::collaborator_permission(const std::string& user) {
  try {
    json j = request("GET", "/collaborators/" + percent_encode(user) + "/permission");
    GitHubPermission p;
    if (j.is_object()) {
      p.permission = j.value("permission", "none");
      p.role_name = j.value("role_name", "");
    }
    return p;
  } catch (const GitHubError& e) {
    if (e.status == 404) return {};  // not a collaborator (or the account is gone): no access
    throw;
  }
}

GitHubReaction GitHubClient::react_to_comment(int64_t comment_id, const std::string& content) {
  auto response = send("POST", "/issues/comments/" + std::to_string(comment_id) + "/reactions",
                       json{{"content", content}}.dump());
  GitHubReaction reaction;
  reaction.created = response.status == 201;
  json j = parse(response, "reaction");
  if (j.is_object()) {
    reaction.id = j.value("id", int64_t{0});
    reaction.created_at = j.contains("created_at") && j["created_at"].is_string() ? j["created_at"].get<std::string>()
                                                                                  : "";
  }
  return reaction;
}

void GitHubClient::delete_comment_reaction(int64_t comment_id, int64_t reaction_id) {
  try {
    send("DELETE", "/issues/comments/" + std::to_string(comment_id) + "/reactions/" + std::to_string(reaction_id), "");
  } catch (const GitHubError& e) {
    if (e.status != 404) throw;  // gone already: another run removed it first
  }
}

GitHubClient::Created GitHubClient::create_pull(const std::string& title, const std::string& body,
                                                const std::string& head, const std::string& base, bool draft) {
  json request = {{"title", title}, {"body", fit_github_body(body)}, {"head", head}, {"base", base}, {"draft", draft}};
  try {
    auto response = send("POST", "/pulls", request.dump());
    return {pull_from_json(parse(response, "create pull request")), true};
  } catch (const GitHubError& e) {
    // A PR for this head exists: opened by an earlier run, or by this one's POST whose answer was lost.
    if (e.status != 422 || !contains_ci(e.what(), "already exists")) throw;
    auto existing = open_pulls(head);
    if (existing.empty()) throw;
    spdlog::info("GitHub: a pull request for {} already exists (#{}); updating it", head, existing.front().number);
    return {update_pull(existing.front().number, title, body), false};
  }
}

GitHubPull GitHubClient::update_pull(int64_t number, const std::string& title, const std::string& body) {
  json request = {{"title", title}, {"body", fit_github_body(body)}};
  auto response = send("PATCH", "/pulls/" + std::to_string(number), request.dump());
  return pull_from_json(parse(response, "update pull request"));
}

void GitHubClient::add_labels(int64_t number, const std::vector<std::string>& labels) {
  if (labels.empty()) return;
  send("POST", "/issues/" + std::to_string(number) + "/labels", json{{"labels", labels}}.dump());
}

void GitHubClient::comment(int64_t number, const std::string& body) {
  send("POST", "/issues/" + std::to_string(number) + "/comments", json{{"body", fit_github_body(body)}}.dump());
}

void GitHubClient::close_pull(int64_t number, const std::string& comment_body) {
  if (!comment_body.empty()) comment(number, comment_body);
  send("PATCH", "/pulls/" + std::to_string(number), json{{"state", "closed"}}.dump());
}

}  // namespace kb::bot
