#include "tests/bot/fake_github.h"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace kb::testing {
namespace {

using nlohmann::json;

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> query_of(const std::string& target) {
  std::map<std::string, std::string> q;
  size_t qm = target.find('?');
  if (qm == std::string::npos) return q;
  std::string rest = target.substr(qm + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t amp = rest.find('&', pos);
    if (amp == std::string::npos) amp = rest.size();
    std::string kv = rest.substr(pos, amp - pos);
    size_t eq = kv.find('=');
    if (!kv.empty()) q[url_decode(kv.substr(0, eq))] = eq == std::string::npos ? "" : url_decode(kv.substr(eq + 1));
    pos = amp + 1;
  }
  return q;
}

LoopbackResponse error(int status, const std::string& message) {
  return json_response(status, json{{"message", message},
                                    {"documentation_url", "https://docs.github.com/rest"}}.dump());
}

LoopbackResponse validation_failed(const std::string& message) {
  json body{{"message", "Validation Failed"},
            {"errors", json::array({{{"resource", "PullRequest"}, {"code", "custom"}, {"message", message}}})}};
  return json_response(422, body.dump());
}

}  // namespace

FakeGitHub::FakeGitHub(std::string repository, std::string token)
    : repository_(std::move(repository)), owner_(repository_.substr(0, repository_.find('/'))),
      token_(std::move(token)),
      server_(std::make_unique<LoopbackHttpServer>([this](const LoopbackRequest& r) { return handle(r); })) {}

std::string FakeGitHub::html_url(int64_t number) const {
  return "https://github.com/" + repository_ + "/pull/" + std::to_string(number);
}

int64_t FakeGitHub::add_pull(FakePullRequest pr) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pr.number == 0) pr.number = next_number_;
  next_number_ = std::max(next_number_, pr.number + 1);
  if (pr.html_url.empty()) pr.html_url = html_url(pr.number);
  pulls_.push_back(pr);
  return pr.number;
}

std::vector<FakePullRequest> FakeGitHub::pulls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pulls_;
}

std::vector<FakePullRequest> FakeGitHub::open_pulls() const {
  std::vector<FakePullRequest> out;
  for (auto& p : pulls()) {
    if (p.state == "open") out.push_back(p);
  }
  return out;
}

int FakeGitHub::calls(GitHubEndpoint endpoint) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = calls_.find(endpoint);
  return it == calls_.end() ? 0 : it->second;
}

void FakeGitHub::inject(GitHubEndpoint endpoint, GitHubFault fault) {
  std::lock_guard<std::mutex> lock(mutex_);
  faults_[endpoint].push_back(std::move(fault));
}

void FakeGitHub::fail_next(GitHubEndpoint endpoint, int n, int status) {
  for (int i = 0; i < n; ++i) inject(endpoint, {error(status, status == 502 ? "Bad Gateway" : "Server Error"), false});
}

void FakeGitHub::secondary_rate_limit(GitHubEndpoint endpoint, int retry_after_s) {
  LoopbackResponse r = error(403, "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                                  "try again.");
  r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
  inject(endpoint, {r, false});
}

void FakeGitHub::already_exists_on_next_create(const std::string& branch) {
  inject(GitHubEndpoint::create_pull,
         {validation_failed("A pull request already exists for " + owner_ + ":" + branch + "."), false});
}

void FakeGitHub::delay_next(GitHubEndpoint endpoint, int n, double delay_s) {
  LoopbackResponse r;
  r.delay_s = delay_s;
  for (int i = 0; i < n; ++i) inject(endpoint, {r, true});
}

LoopbackResponse FakeGitHub::handle(const LoopbackRequest& request) {
  auto auth = request.headers.find("authorization");
  if (auth == request.headers.end() || auth->second != "Bearer " + token_) return error(401, "Bad credentials");

  // Route: /repos/{owner}/{name}/pulls[/{n}] and /repos/{owner}/{name}/issues/{n}/labels.
  std::string prefix = "/repos/" + repository_ + "/";
  if (request.path.rfind(prefix, 0) != 0) return error(404, "Not Found");
  std::string rest = request.path.substr(prefix.size());
  GitHubEndpoint endpoint;
  int64_t number = 0;
  if (rest == "pulls" && request.method == "GET") {
    endpoint = GitHubEndpoint::list_pulls;
  } else if (rest == "pulls" && request.method == "POST") {
    endpoint = GitHubEndpoint::create_pull;
  } else if (rest.rfind("pulls/", 0) == 0 && request.method == "PATCH") {
    endpoint = GitHubEndpoint::update_pull;
    number = std::atoll(rest.c_str() + 6);
  } else if (rest.rfind("issues/", 0) == 0 && rest.size() > 14 && rest.substr(rest.size() - 7) == "/labels" &&
             request.method == "POST") {
    endpoint = GitHubEndpoint::add_labels;
    number = std::atoll(rest.c_str() + 7);
  } else {
    return error(404, "Not Found");
  }

  std::unique_lock<std::mutex> lock(mutex_);
  ++calls_[endpoint];
  auto& queue = faults_[endpoint];
  if (!queue.empty()) {
    GitHubFault fault = queue.front();
    queue.pop_front();
    if (!fault.then_serve) return fault.response;
    LoopbackResponse r = serve(endpoint, request, number);
    r.delay_s = fault.response.delay_s;
    return r;
  }
  return serve(endpoint, request, number);
}

// Called with mutex_ held.
LoopbackResponse FakeGitHub::serve(GitHubEndpoint endpoint, const LoopbackRequest& request, int64_t number) {
  switch (endpoint) {
    case GitHubEndpoint::list_pulls: return list(request);
    case GitHubEndpoint::create_pull: return create(request);
    case GitHubEndpoint::update_pull: return update(request, number);
    case GitHubEndpoint::add_labels: return label(request, number);
  }
  return error(500, "unreachable");
}

namespace {

json to_json(const FakePullRequest& p, const std::string& owner) {
  json labels = json::array();
  for (const auto& l : p.labels) labels.push_back({{"name", l}});
  return json{{"number", p.number},   {"title", p.title},       {"body", p.body},
              {"state", p.state},     {"draft", p.draft},       {"html_url", p.html_url},
              {"labels", labels},     {"head", {{"ref", p.head}, {"label", owner + ":" + p.head}}},
              {"base", {{"ref", p.base}}}};
}

}  // namespace

LoopbackResponse FakeGitHub::list(const LoopbackRequest& request) {
  auto q = query_of(request.target);
  std::string state = q.count("state") ? q["state"] : "open";
  int per_page = q.count("per_page") ? std::clamp(std::atoi(q["per_page"].c_str()), 1, 100) : 30;
  int page = q.count("page") ? std::max(1, std::atoi(q["page"].c_str())) : 1;
  std::vector<const FakePullRequest*> matching;
  for (const auto& p : pulls_) {
    if (state != "all" && p.state != state) continue;
    if (q.count("head") && q["head"] != owner_ + ":" + p.head) continue;
    matching.push_back(&p);
  }
  json body = json::array();
  size_t first = static_cast<size_t>(page - 1) * per_page;
  for (size_t i = first; i < matching.size() && i < first + per_page; ++i) body.push_back(to_json(*matching[i], owner_));

  std::vector<std::pair<std::string, std::string>> headers;
  int last = std::max<int>(1, static_cast<int>((matching.size() + per_page - 1) / per_page));
  if (page < last) {
    std::string base = server_->base_url() + request.path + "?state=" + state + "&per_page=" + std::to_string(per_page);
    if (q.count("head")) base += "&head=" + q["head"];
    headers.emplace_back("Link", "<" + base + "&page=" + std::to_string(page + 1) + ">; rel=\"next\", <" + base +
                                     "&page=" + std::to_string(last) + ">; rel=\"last\"");
  }
  return json_response(200, body.dump(), headers);
}

LoopbackResponse FakeGitHub::create(const LoopbackRequest& request) {
  json in = json::parse(request.body, nullptr, false);
  if (!in.is_object() || !in.contains("title") || !in.contains("head") || !in.contains("base")) {
    return validation_failed("title, head and base are required");
  }
  FakePullRequest pr;
  pr.head = in["head"].get<std::string>();
  for (const auto& p : pulls_) {
    if (p.state == "open" && p.head == pr.head) {
      return validation_failed("A pull request already exists for " + owner_ + ":" + pr.head + ".");
    }
  }
  pr.number = next_number_++;
  pr.title = in["title"].get<std::string>();
  pr.body = in.value("body", std::string());
  pr.base = in["base"].get<std::string>();
  pr.draft = in.value("draft", false);
  pr.html_url = html_url(pr.number);
  pulls_.push_back(pr);
  return json_response(201, to_json(pr, owner_).dump());
}

LoopbackResponse FakeGitHub::update(const LoopbackRequest& request, int64_t number) {
  json in = json::parse(request.body, nullptr, false);
  for (auto& p : pulls_) {
    if (p.number != number) continue;
    if (in.is_object() && in.contains("title")) p.title = in["title"].get<std::string>();
    if (in.is_object() && in.contains("body")) p.body = in["body"].get<std::string>();
    return json_response(200, to_json(p, owner_).dump());
  }
  return error(404, "Not Found");
}

LoopbackResponse FakeGitHub::label(const LoopbackRequest& request, int64_t number) {
  json in = json::parse(request.body, nullptr, false);
  for (auto& p : pulls_) {
    if (p.number != number) continue;
    json out = json::array();
    if (in.is_object() && in.contains("labels")) {
      for (const auto& l : in["labels"]) {
        auto name = l.get<std::string>();
        if (std::find(p.labels.begin(), p.labels.end(), name) == p.labels.end()) p.labels.push_back(name);
      }
    }
    for (const auto& l : p.labels) out.push_back({{"name", l}});
    return json_response(200, out.dump());
  }
  return error(404, "Not Found");
}

}  // namespace kb::testing
