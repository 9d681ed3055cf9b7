#include "tests/bot/fake_github.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kb::testing {
namespace {

using nlohmann::json;

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> query_of(const std::string& target) {
  std::map<std::string, std::string> q;
  auto qm = target.find('?');
  if (qm == std::string::npos) return q;
  std::string rest = target.substr(qm + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t amp = rest.find('&', pos);
    std::string kv = rest.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    auto eq = kv.find('=');
    if (!kv.empty()) q[url_decode(kv.substr(0, eq))] = eq == std::string::npos ? "" : url_decode(kv.substr(eq + 1));
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return q;
}

// GitHub's timestamps: "2026-11-29T09:30:00Z".
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json read_template(const std::string& name) {
  std::ifstream in(std::string(KB_SOURCE_DIR) + "/tests/bot/data/github/" + name);
  if (!in) throw std::runtime_error("fake GitHub: cannot read the template tests/bot/data/github/" + name);
  return json::parse(in);
}

LoopbackResponse error(int status, const std::string& message, const json& errors = nullptr) {
  json j = {{"message", message}, {"documentation_url", "https://docs.github.com/rest"}};
  if (!errors.is_null()) j["errors"] = errors;
  return json_response(status, j.dump());
}

}  // namespace

FakeGitHub::FakeGitHub(std::string repository, std::string token, int page_size)
    : repository_(std::move(repository)),
      owner_(repository_.substr(0, repository_.find('/'))),
      token_(std::move(token)),
      page_size_(page_size),
      pull_template_(read_template("pull-request.json")),
      label_template_(read_template("label.json")),
      comment_template_(read_template("issue-comment.json")),
      commit_template_(read_template("commit.json")),
      reaction_template_(read_template("reaction.json")),
      permission_template_(read_template("collaborator-permission.json")),
      issue_template_(read_template("issue.json")),
      log_(std::make_unique<ExchangeLog>(KB_GITHUB_EXCHANGES_DIR)),
      server_([this](const LoopbackRequest& r) { return handle(r); }) {}

void FakeGitHub::add_fault(FakeFault fault) {
  std::lock_guard lock(mutex_);
  faults_.push_back(std::move(fault));
}

int64_t FakeGitHub::add_pull(const std::string& head, const std::string& title, const std::string& state) {
  std::lock_guard lock(mutex_);
  FakePull p;
  p.number = static_cast<int64_t>(pulls_.size()) + 1;
  p.head = head;
  p.title = title;
  p.base = "main";
  p.state = state;
  pulls_.push_back(p);
  return p.number;
}

void FakeGitHub::close_pull(int64_t number, bool merged) {
  std::lock_guard lock(mutex_);
  auto& p = pulls_.at(static_cast<size_t>(number - 1));
  p.state = "closed";
  p.merged = merged;
}

void FakeGitHub::add_label(int64_t number, const std::string& label) {
  std::lock_guard lock(mutex_);
  pulls_.at(static_cast<size_t>(number - 1)).labels.push_back(label);
}

void FakeGitHub::add_commit(int64_t number, FakePull::Commit commit) {
  std::lock_guard lock(mutex_);
  pulls_.at(static_cast<size_t>(number - 1)).commits.push_back(std::move(commit));
}

int64_t FakeGitHub::add_comment(int64_t number, const std::string& user, const std::string& body) {
  std::lock_guard lock(mutex_);
  return new_comment(pulls_.at(static_cast<size_t>(number - 1)), user, "User", body).id;
}

FakeComment& FakeGitHub::new_comment(FakePull& p, const std::string& user, const std::string& user_type,
                                     const std::string& body) {
  p.comments.push_back(body);
  // GitHub's comment ids are large and shared by every issue of the repository.
  comments_.push_back({900000 + static_cast<int64_t>(comments_.size()) + 1, p.number, body, user, user_type, {}, {}});
  return comments_.back();
}

std::vector<FakePull> FakeGitHub::issues() const {
  std::lock_guard lock(mutex_);
  return issues_;
}

int64_t FakeGitHub::add_issue(const std::string& title, const std::string& body,
                              const std::vector<std::string>& labels) {
  std::lock_guard lock(mutex_);
  FakePull i;
  i.number = 1001 + static_cast<int64_t>(issues_.size());
  i.title = title;
  i.body = body;
  i.labels = labels;
  issues_.push_back(i);
  return i.number;
}

// GitHub's example issue with this one's state; without "pull_request", which marks a PR.
json FakeGitHub::issue_json(const FakePull& i) const {
  const std::string api = server_.base_url() + "/repos/" + repository_;
  const std::string n = std::to_string(i.number);
  json j = issue_template_;
  j.erase("pull_request");
  j["number"] = i.number;
  j["id"] = 5000 + i.number;
  j["state"] = i.state;
  j["state_reason"] = i.state == "closed" ? json("not_planned") : json(nullptr);
  j["title"] = i.title;
  j["body"] = i.body;
  j["url"] = api + "/issues/" + n;
  j["html_url"] = "https://github.com/" + repository_ + "/issues/" + n;
  j["comments_url"] = api + "/issues/" + n + "/comments";
  j["closed_at"] = i.state == "closed" ? json("2011-01-26T19:01:12Z") : json(nullptr);
  j["labels"] = json::array();
  for (const auto& l : i.labels) j["labels"].push_back(label_json(l));
  j["comments"] = i.comments.size();
  return j;
}

// GET /issues: issues and PRs (as GitHub lists both), filtered by state and every label named.
LoopbackResponse FakeGitHub::issues_list(const LoopbackRequest& request) const {
  auto q = query_of(request.target);
  const std::string state = q.count("state") ? q["state"] : "open";
  std::vector<std::string> wanted;
  for (size_t pos = 0; q.count("labels") && pos <= q["labels"].size();) {
    size_t comma = q["labels"].find(',', pos);
    wanted.push_back(q["labels"].substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  auto matches = [&](const FakePull& i) {
    if (state != "all" && i.state != state) return false;
    for (const auto& l : wanted)
      if (std::find(i.labels.begin(), i.labels.end(), l) == i.labels.end()) return false;
    return true;
  };
  json out = json::array();
  for (const auto& p : pulls_)
    if (matches(p)) {
      json j = issue_json(p);
      j["pull_request"] = issue_template_["pull_request"];
      out.push_back(j);
    }
  for (const auto& i : issues_)
    if (matches(i)) out.push_back(issue_json(i));
  return json_response(200, out.dump());
}

void FakeGitHub::set_permission(const std::string& user, const std::string& role) {
  std::lock_guard lock(mutex_);
  permissions_[user] = role;
}

std::vector<FakeComment> FakeGitHub::comments_on(int64_t number) const {
  std::lock_guard lock(mutex_);
  std::vector<FakeComment> out;
  for (const auto& c : comments_)
    if (c.issue == number) out.push_back(c);
  return out;
}

json FakeGitHub::comment_json(const FakeComment& c) const {
  const std::string api = server_.base_url() + "/repos/" + repository_;
  json j = comment_template_;
  j["id"] = c.id;
  j["body"] = c.body;
  j["user"]["login"] = c.user;
  j["user"]["type"] = c.user_type;
  j["issue_url"] = api + "/issues/" + std::to_string(c.issue);
  j["url"] = api + "/issues/comments/" + std::to_string(c.id);
  j["html_url"] = "https://github.com/" + repository_ + "/pull/" + std::to_string(c.issue) + "#issuecomment-" +
                  std::to_string(c.id);
  return j;
}

// GitHub keeps one reaction per account and emoji: 201 "Reaction created" the first time, 200
// "Reaction exists" after, which is what lets two runs agree on who answers a comment.
LoopbackResponse FakeGitHub::serve_reaction(const std::string& comment_id, const json& body) {
  static const std::vector<std::string> kContents = {"+1",    "-1",     "laugh",  "confused",
                                                     "heart", "hooray", "rocket", "eyes"};
  auto c = std::find_if(comments_.begin(), comments_.end(),
                        [&](const FakeComment& x) { return std::to_string(x.id) == comment_id; });
  if (c == comments_.end()) return error(404, "Not Found");
  const std::string content = body.is_object() ? body.value("content", "") : "";
  if (std::find(kContents.begin(), kContents.end(), content) == kContents.end())
    return error(422, "Validation Failed",
                 json::array({{{"resource", "Reaction"}, {"field", "content"}, {"code", "invalid"}}}));
  const std::string key = std::string(kBotLogin) + ":" + content;
  const auto found = std::find(c->reactions.begin(), c->reactions.end(), key);
  const bool exists = found != c->reactions.end();
  if (!exists) {
    c->reactions.push_back(key);
    c->reaction_meta.emplace_back(++next_reaction_id_, utc_now());
  }
  const auto& meta = c->reaction_meta.at(static_cast<size_t>(
      exists ? found - c->reactions.begin() : static_cast<std::ptrdiff_t>(c->reactions.size()) - 1));
  json r = reaction_template_;
  r["id"] = meta.first;
  r["created_at"] = meta.second;
  r["content"] = content;
  r["user"]["login"] = kBotLogin;
  r["user"]["type"] = "Bot";
  return json_response(exists ? 200 : 201, r.dump());
}

int64_t FakeGitHub::add_bot_reaction(int64_t comment_id, const std::string& content, const std::string& created_at) {
  std::lock_guard lock(mutex_);
  for (auto& c : comments_)
    if (c.id == comment_id) {
      c.reactions.push_back(std::string(kBotLogin) + ":" + content);
      c.reaction_meta.emplace_back(++next_reaction_id_, created_at);
      return next_reaction_id_;
    }
  throw std::runtime_error("fake GitHub: no comment " + std::to_string(comment_id));
}

// DELETE /issues/comments/{comment_id}/reactions/{reaction_id}: 204, or 404 when it is not there.
LoopbackResponse FakeGitHub::serve_reaction_delete(const std::string& comment_id, const std::string& reaction_id) {
  for (auto& c : comments_) {
    if (std::to_string(c.id) != comment_id) continue;
    for (size_t i = 0; i < c.reaction_meta.size(); ++i)
      if (std::to_string(c.reaction_meta[i].first) == reaction_id) {
        c.reactions.erase(c.reactions.begin() + static_cast<std::ptrdiff_t>(i));
        c.reaction_meta.erase(c.reaction_meta.begin() + static_cast<std::ptrdiff_t>(i));
        LoopbackResponse gone;
        gone.status = 204;
        return gone;
      }
  }
  return error(404, "Not Found");
}

LoopbackResponse FakeGitHub::serve_permission(const std::string& user) const {
  auto role = permissions_.find(user);
  if (role == permissions_.end()) return error(404, "Not Found");
  json j = permission_template_;
  // "permission" keeps GitHub's old five values' first four: maintain reads as write, triage as read.
  j["role_name"] = role->second;
  j["permission"] = role->second == "maintain" ? "write" : role->second == "triage" ? "read" : role->second;
  j["user"]["login"] = user;
  j["user"]["role_name"] = role->second;  // the description requires it of a collaborator
  return json_response(200, j.dump());
}

std::vector<FakePull> FakeGitHub::pulls() const {
  std::lock_guard lock(mutex_);
  return pulls_;
}

std::vector<FakePull> FakeGitHub::open_pulls_for(const std::string& head) const {
  std::vector<FakePull> out;
  for (const auto& p : pulls())
    if (p.state == "open" && p.head == head) out.push_back(p);
  return out;
}

void FakeGitHub::set_rate_limit_remaining(int remaining) {
  std::lock_guard lock(mutex_);
  rate_limit_remaining_ = remaining;
}

int FakeGitHub::count(const std::string& method, const std::string& prefix) const {
  int n = 0;
  for (const auto& r : requests()) n += r.method == method && r.path.rfind(prefix, 0) == 0;
  return n;
}

json FakeGitHub::label_json(const std::string& name) const {
  json l = label_template_;
  l["name"] = name;
  // GitHub's label URLs are percent-encoded ("kernelbot:%20dashboard"): a URI has no spaces.
  std::string encoded;
  for (char c : name) encoded += c == ' ' ? std::string("%20") : std::string(1, c);
  l["url"] = server_.base_url() + "/repos/" + repository_ + "/labels/" + encoded;
  l["default"] = false;
  return l;
}

// GitHub's example pull request with this one's state: what the client reads is this PR's, the
// rest (users, repositories, timestamps) keeps the example's values and so GitHub's shape.
json FakeGitHub::pull_json(const FakePull& p) const {
  const std::string api = server_.base_url() + "/repos/" + repository_;
  const std::string n = std::to_string(p.number);
  json j = pull_template_;
  j["number"] = p.number;
  j["id"] = 1000 + p.number;
  j["state"] = p.state;
  j["title"] = p.title;
  j["body"] = p.body;
  j["draft"] = p.draft;
  j["url"] = api + "/pulls/" + n;
  j["html_url"] = "https://github.com/" + repository_ + "/pull/" + n;
  j["issue_url"] = api + "/issues/" + n;
  j["comments_url"] = api + "/issues/" + n + "/comments";
  j["head"]["ref"] = p.head;
  j["head"]["label"] = owner_ + ":" + p.head;
  j["base"]["ref"] = p.base;
  j["closed_at"] = p.state == "closed" ? json("2011-01-26T19:01:12Z") : json(nullptr);
  j["merged"] = p.merged;
  j["merged_at"] = p.merged ? json("2011-01-26T19:01:12Z") : json(nullptr);
  j["labels"] = json::array();
  for (const auto& l : p.labels) j["labels"].push_back(label_json(l));
  j["comments"] = p.comments.size();
  return j;
}

LoopbackResponse FakeGitHub::pulls_list(const LoopbackRequest& request) {
  auto q = query_of(request.target);
  std::string state = q.count("state") ? q["state"] : "open";
  int per_page = q.count("per_page") ? std::min(std::stoi(q["per_page"]), page_size_) : page_size_;
  int page = q.count("page") ? std::stoi(q["page"]) : 1;
  std::vector<const FakePull*> matching;
  for (const auto& p : pulls_) {
    if (state != "all" && p.state != state) continue;
    if (q.count("head") && q["head"] != owner_ + ":" + p.head) continue;
    matching.push_back(&p);
  }
  json out = json::array();
  size_t first = static_cast<size_t>((page - 1) * per_page);
  for (size_t i = first; i < matching.size() && i < first + static_cast<size_t>(per_page); ++i)
    out.push_back(pull_json(*matching[i]));
  std::vector<std::pair<std::string, std::string>> headers;
  if (first + static_cast<size_t>(per_page) < matching.size()) {
    // Like GitHub: an absolute URL with the same query and the next page number.
    std::string next = server_.base_url() + request.path + "?state=" + state + "&per_page=" + std::to_string(per_page) +
                       "&page=" + std::to_string(page + 1);
    if (q.count("head")) next += "&head=" + q["head"];
    headers.emplace_back("Link",
                         "<" + next + ">; rel=\"next\", <" + server_.base_url() + request.path + ">; rel=\"first\"");
  }
  return json_response(200, out.dump(), headers);
}

// GitHub's example commit with this one's identities; one page (GitHub lists at most 250).
LoopbackResponse FakeGitHub::commits_list(const FakePull& p, const LoopbackRequest&) const {
  json out = json::array();
  for (const auto& c : p.commits) {
    json j = commit_template_;
    const std::string api = server_.base_url() + "/repos/" + repository_;
    j["sha"] = c.sha;
    j["url"] = api + "/commits/" + c.sha;
    j["html_url"] = "https://github.com/" + repository_ + "/commit/" + c.sha;
    j["comments_url"] = api + "/commits/" + c.sha + "/comments";
    j["commit"]["url"] = api + "/git/commits/" + c.sha;
    j["commit"]["author"]["name"] = c.author_name;
    j["commit"]["author"]["email"] = c.author_email;
    j["commit"]["committer"]["name"] = c.author_name;
    j["commit"]["committer"]["email"] = c.committer_email.empty() ? c.author_email : c.committer_email;
    out.push_back(j);
  }
  return json_response(200, out.dump());
}

LoopbackResponse FakeGitHub::handle(const LoopbackRequest& request) {
  std::lock_guard lock(mutex_);
  LoopbackResponse response;
  auto fault = std::find_if(faults_.begin(), faults_.end(), [&](const FakeFault& f) {
    return (f.method.empty() || f.method == request.method) && request.path.rfind(f.path_prefix, 0) == 0;
  });
  if (fault == faults_.end()) {
    response = serve(request);
  } else if (!fault->handle_then_delay) {
    response = fault->response;
  } else {
    response = serve(request);
    response.delay_s = fault->response.delay_s;
  }
  if (fault == faults_.end() || fault->handle_then_delay) {
    // GitHub's primary-limit headers, on every answer of its own.
    const int remaining = std::max(0, rate_limit_remaining_--);
    response.headers.emplace_back("x-ratelimit-limit", "5000");
    response.headers.emplace_back("x-ratelimit-remaining", std::to_string(remaining));
    response.headers.emplace_back("x-ratelimit-reset", std::to_string(std::time(nullptr) + 3600));
    response.headers.emplace_back("x-ratelimit-resource", "core");
  }
  if (fault != faults_.end()) faults_.erase(fault);
  // Faults are logged too: a test's hand-written error body must be one GitHub could send.
  log_->append(request, response);
  return response;
}

LoopbackResponse FakeGitHub::serve(const LoopbackRequest& request) {
  auto header = [&](const std::string& name) {
    auto it = request.headers.find(name);
    return it == request.headers.end() ? std::string() : it->second;
  };
  if (header("authorization") != "Bearer " + token_) return error(401, "Bad credentials");
  if (header("accept") != "application/vnd.github+json") return error(415, "Unsupported Accept header");
  if (header("x-github-api-version") != "2022-11-28") return error(400, "Missing or unknown X-GitHub-Api-Version");
  if (header("user-agent").empty()) return error(403, "Request forbidden by administrative rules: no User-Agent");

  const std::string base = "/repos/" + repository_;
  if (request.path.rfind(base, 0) != 0) return error(404, "Not Found");
  const std::string path = request.path.substr(base.size());
  json body;
  if (!request.body.empty()) {
    try {
      body = json::parse(request.body);
    } catch (const json::exception&) {
      return error(400, "Problems parsing JSON");
    }
  }
  auto find = [&](const std::string& number) -> FakePull* {
    for (auto& p : pulls_)
      if (std::to_string(p.number) == number) return &p;
    for (auto& i : issues_)
      if (std::to_string(i.number) == number) return &i;
    return nullptr;
  };

  if (path == "/pulls" && request.method == "GET") return pulls_list(request);
  if (path == "/pulls" && request.method == "POST") {
    for (const char* field : {"title", "head", "base"})
      if (!body.contains(field) || !body[field].is_string())
        return error(422, "Validation Failed",
                     json::array({{{"resource", "PullRequest"}, {"field", field}, {"code", "missing_field"}}}));
    std::string head = body["head"];
    if (head.find(':') != std::string::npos) head = head.substr(head.find(':') + 1);
    for (const auto& p : pulls_)
      if (p.state == "open" && p.head == head)
        return error(422, "Validation Failed",
                     json::array({{{"resource", "PullRequest"},
                                   {"code", "custom"},
                                   {"message", "A pull request already exists for " + owner_ + ":" + head + "."}}}));
    FakePull p;
    p.number = static_cast<int64_t>(pulls_.size()) + 1;
    p.title = body["title"];
    p.body = body.value("body", "");
    p.head = head;
    p.base = body["base"];
    p.draft = body.value("draft", false);
    pulls_.push_back(p);
    return json_response(201, pull_json(p).dump(),
                         {{"Location", server_.base_url() + base + "/pulls/" + std::to_string(p.number)}});
  }
  if (path.rfind("/pulls/", 0) == 0 && request.method == "GET") {
    std::string rest = path.substr(7);
    const auto slash = rest.find('/');
    FakePull* p = find(rest.substr(0, slash));
    if (!p) return error(404, "Not Found");
    if (slash != std::string::npos && rest.substr(slash) == "/commits") return commits_list(*p, request);
    if (slash == std::string::npos) return json_response(200, pull_json(*p).dump());
    return error(404, "Not Found");
  }
  if (path.rfind("/pulls/", 0) == 0 && request.method == "PATCH") {
    FakePull* p = find(path.substr(7));
    if (!p) return error(404, "Not Found");
    if (body.contains("title")) p->title = body["title"];
    if (body.contains("body")) p->body = body["body"];
    if (body.contains("state")) p->state = body["state"];
    return json_response(200, pull_json(*p).dump());
  }
  if (path == "/issues" && request.method == "GET") return issues_list(request);
  if (path == "/issues" && request.method == "POST") {
    if (!body.contains("title") || !body["title"].is_string())
      return error(422, "Validation Failed",
                   json::array({{{"resource", "Issue"}, {"field", "title"}, {"code", "missing_field"}}}));
    FakePull i;
    i.number = 1001 + static_cast<int64_t>(issues_.size());
    i.title = body["title"];
    i.body = body.value("body", "");
    if (body.contains("labels"))
      for (const auto& l : body["labels"]) i.labels.push_back(l);
    issues_.push_back(i);
    return json_response(201, issue_json(i).dump(),
                         {{"Location", server_.base_url() + base + "/issues/" + std::to_string(i.number)}});
  }
  if (path.rfind("/issues/", 0) == 0 && path.find('/', 8) == std::string::npos && request.method == "PATCH") {
    FakePull* i = nullptr;
    for (auto& x : issues_)
      if (std::to_string(x.number) == path.substr(8)) i = &x;
    if (!i) return error(404, "Not Found");
    if (body.contains("body")) i->body = body["body"];
    if (body.contains("title")) i->title = body["title"];
    if (body.contains("state")) i->state = body["state"];
    return json_response(200, issue_json(*i).dump());
  }
  if (path.rfind("/issues/comments/", 0) == 0 && request.method == "POST") {
    std::string rest = path.substr(std::string("/issues/comments/").size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos || rest.substr(slash) != "/reactions") return error(404, "Not Found");
    return serve_reaction(rest.substr(0, slash), body);
  }
  if (path.rfind("/issues/comments/", 0) == 0 && request.method == "DELETE") {
    std::string rest = path.substr(std::string("/issues/comments/").size());
    const auto slash = rest.find("/reactions/");
    if (slash == std::string::npos) return error(404, "Not Found");
    return serve_reaction_delete(rest.substr(0, slash), rest.substr(slash + std::string("/reactions/").size()));
  }
  if (path.rfind("/collaborators/", 0) == 0 && request.method == "GET") {
    std::string rest = path.substr(std::string("/collaborators/").size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos || rest.substr(slash) != "/permission") return error(404, "Not Found");
    return serve_permission(url_decode(rest.substr(0, slash)));
  }
  if (path.rfind("/issues/", 0) == 0 && request.method == "GET") {
    std::string rest = path.substr(8);
    const auto slash = rest.find('/');
    FakePull* p = find(rest.substr(0, slash));
    if (!p) return error(404, "Not Found");
    if (slash == std::string::npos || rest.substr(slash) != "/comments") return error(404, "Not Found");
    json out = json::array();
    for (const auto& c : comments_)
      if (c.issue == p->number) out.push_back(comment_json(c));
    return json_response(200, out.dump());
  }
  if (path.rfind("/issues/", 0) == 0 && request.method == "POST") {
    std::string rest = path.substr(8);
    auto slash = rest.find('/');
    FakePull* p = find(rest.substr(0, slash));
    if (!p) return error(404, "Not Found");
    std::string what = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (what == "labels") {
      if (!body.contains("labels") || !body["labels"].is_array()) return error(422, "Invalid request: labels");
      for (const auto& l : body["labels"])
        if (std::find(p->labels.begin(), p->labels.end(), l.get<std::string>()) == p->labels.end())
          p->labels.push_back(l);
      json out = json::array();
      for (const auto& l : p->labels) out.push_back(label_json(l));
      return json_response(200, out.dump());
    }
    if (what == "comments") {
      const FakeComment& c = new_comment(*p, kBotLogin, "Bot", body.value("body", ""));
      json j = comment_json(c);
      return json_response(201, j.dump(), {{"Location", j["url"].get<std::string>()}});
    }
  }
  return error(404, "Not Found");
}

}  // namespace kb::testing
