#include "tests/bot/fake_github.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

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

LoopbackResponse error(int status, const std::string& message, const json& errors = nullptr) {
  json j = {{"message", message}, {"documentation_url", "https://docs.github.com/rest"}};
  if (!errors.is_null()) j["errors"] = errors;
  return json_response(status, j.dump());
}

}  // namespace

FakeGitHub::FakeGitHub(std::string repository, std::string token, int page_size)
    : repository_(std::move(repository)), owner_(repository_.substr(0, repository_.find('/'))),
      token_(std::move(token)), page_size_(page_size),
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

int FakeGitHub::count(const std::string& method, const std::string& prefix) const {
  int n = 0;
  for (const auto& r : requests()) n += r.method == method && r.path.rfind(prefix, 0) == 0;
  return n;
}

std::string FakeGitHub::pull_json(const FakePull& p) const {
  json labels = json::array();
  for (const auto& l : p.labels) labels.push_back({{"name", l}});
  return json{{"number", p.number},
              {"state", p.state},
              {"title", p.title},
              {"body", p.body},
              {"draft", p.draft},
              {"html_url", "https://github.com/" + repository_ + "/pull/" + std::to_string(p.number)},
              {"head", {{"ref", p.head}, {"label", owner_ + ":" + p.head}}},
              {"base", {{"ref", p.base}}},
              {"labels", labels}}
      .dump();
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
    out.push_back(json::parse(pull_json(*matching[i])));
  std::vector<std::pair<std::string, std::string>> headers;
  if (first + static_cast<size_t>(per_page) < matching.size()) {
    // Like GitHub: an absolute URL with the same query and the next page number.
    std::string next = server_.base_url() + request.path + "?state=" + state + "&per_page=" + std::to_string(per_page) +
                       "&page=" + std::to_string(page + 1);
    if (q.count("head")) next += "&head=" + q["head"];
    headers.emplace_back("Link", "<" + next + ">; rel=\"next\", <" + server_.base_url() + request.path + ">; rel=\"first\"");
  }
  return json_response(200, out.dump(), headers);
}

LoopbackResponse FakeGitHub::handle(const LoopbackRequest& request) {
  std::lock_guard lock(mutex_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it)
    if ((it->method.empty() || it->method == request.method) && request.path.rfind(it->path_prefix, 0) == 0) {
      FakeFault fault = *it;
      faults_.erase(it);
      if (!fault.handle_then_delay) return fault.response;
      LoopbackResponse r = serve(request);
      r.delay_s = fault.response.delay_s;
      return r;
    }
  return serve(request);
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
    return nullptr;
  };

  if (path == "/pulls" && request.method == "GET") return pulls_list(request);
  if (path == "/pulls" && request.method == "POST") {
    for (const char* field : {"title", "head", "base"})
      if (!body.contains(field) || !body[field].is_string())
        return error(422, "Validation Failed", json::array({{{"resource", "PullRequest"}, {"field", field}, {"code", "missing_field"}}}));
    std::string head = body["head"];
    if (head.find(':') != std::string::npos) head = head.substr(head.find(':') + 1);
    for (const auto& p : pulls_)
      if (p.state == "open" && p.head == head)
        return error(422, "Validation Failed",
                     json::array({{{"resource", "PullRequest"}, {"code", "custom"},
                                   {"message", "A pull request already exists for " + owner_ + ":" + head + "."}}}));
    FakePull p;
    p.number = static_cast<int64_t>(pulls_.size()) + 1;
    p.title = body["title"];
    p.body = body.value("body", "");
    p.head = head;
    p.base = body["base"];
    p.draft = body.value("draft", false);
    pulls_.push_back(p);
    return json_response(201, pull_json(p));
  }
  if (path.rfind("/pulls/", 0) == 0 && request.method == "PATCH") {
    FakePull* p = find(path.substr(7));
    if (!p) return error(404, "Not Found");
    if (body.contains("title")) p->title = body["title"];
    if (body.contains("body")) p->body = body["body"];
    if (body.contains("state")) p->state = body["state"];
    return json_response(200, pull_json(*p));
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
      for (const auto& l : p->labels) out.push_back({{"name", l}});
      return json_response(200, out.dump());
    }
    if (what == "comments") {
      p->comments.push_back(body.value("body", ""));
      return json_response(201, json{{"id", p->comments.size()}, {"body", p->comments.back()}}.dump());
    }
  }
  return error(404, "Not Found");
}

}  // namespace kb::testing
