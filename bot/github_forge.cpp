#include "bot/github_forge.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "search/http_client.h"

namespace kb::bot {
namespace {

using nlohmann::json;
using search::HttpRequest;
using search::HttpResponse;
using search::HttpTransportError;

const char* kBotBranchPrefix = "kernelbot/";

// Percent-encodes a query value; branch names may hold characters that mean something in a URL.
std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// GitHub's explanation: "message", then each errors[].message (where 422s say what is wrong).
std::string github_message(const json& j, const std::string& raw_body) {
  if (!j.is_object()) return raw_body.substr(0, 300);
  std::string msg = j.value("message", std::string());
  if (j.contains("errors") && j["errors"].is_array()) {
    for (const auto& e : j["errors"]) {
      if (e.is_object() && e.contains("message") && e["message"].is_string()) {
        msg += (msg.empty() ? "" : ": ") + e["message"].get<std::string>();
      }
    }
  }
  return msg.empty() ? raw_body.substr(0, 300) : msg;
}

// The URL of rel="next" in a Link header: `<url>; rel="next", <url>; rel="last"`.
std::string next_link(const std::string& link) {
  size_t pos = 0;
  while (pos < link.size()) {
    size_t end = link.find(',', pos);
    if (end == std::string::npos) end = link.size();
    std::string part = link.substr(pos, end - pos);
    size_t lt = part.find('<'), gt = part.find('>');
    if (lt != std::string::npos && gt != std::string::npos && gt > lt &&
        part.find("rel=\"next\"", gt) != std::string::npos) {
      return part.substr(lt + 1, gt - lt - 1);
    }
    pos = end + 1;
  }
  return "";
}

bool is_rate_limit(const HttpResponse& r, const std::string& message) {
  if (r.status == 429) return true;
  if (r.status != 403) return false;
  return !r.header("retry-after").empty() || r.header("x-ratelimit-remaining") == "0" ||
         lower(message).find("rate limit") != std::string::npos;
}

}  // namespace

GitHubForge::GitHubForge(GitHubForgeOptions options) : options_(std::move(options)) {
  size_t slash = options_.repository.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == options_.repository.size() ||
      options_.repository.find('/', slash + 1) != std::string::npos) {
    throw std::runtime_error(fmt::format("[github].repository = \"{}\" is not \"owner/name\"", options_.repository));
  }
  owner_ = options_.repository.substr(0, slash);
  repo_path_ = "/repos/" + options_.repository;
  while (!options_.api_url.empty() && options_.api_url.back() == '/') options_.api_url.pop_back();
  options_.max_attempts = std::max(1, options_.max_attempts);
}

std::unique_ptr<GitHubForge> GitHubForge::from_config(const kb::config::Config& config) {
  const auto& gh = config.github;
  std::string var = gh.token_env.empty() ? "GITHUB_TOKEN" : gh.token_env;
  const char* token = std::getenv(var.c_str());
  if ((token == nullptr || *token == '\0') && var != "GITHUB_TOKEN") {
    token = std::getenv("GITHUB_TOKEN");
  }
  if (token == nullptr || *token == '\0') {
    throw std::runtime_error(fmt::format(
        "no GitHub token: set the environment variable {} ([github].token_env){} to a token that may "
        "open pull requests in {}",
        var, var == "GITHUB_TOKEN" ? "" : " or GITHUB_TOKEN", gh.repository));
  }
  GitHubForgeOptions o;
  o.api_url = gh.api_url;
  o.repository = gh.repository;
  o.token = token;
  o.labels = gh.labels;
  o.draft = gh.draft;
  o.max_open_prs = gh.max_open_prs;
  return std::make_unique<GitHubForge>(std::move(o));
}

void GitHubForge::wait(double seconds) {
  if (options_.sleep) {
    options_.sleep(seconds);
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
}

GitHubForge::Reply GitHubForge::request(const std::string& method, const std::string& target,
                                        const json* body) {
  // Link headers carry absolute URLs; only follow those on the configured API host, so the token
  // is never sent anywhere else.
  bool absolute = target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0;
  if (absolute && target.rfind(options_.api_url + "/", 0) != 0) {
    throw std::runtime_error(fmt::format("GitHub pointed at {}, outside {}; not following it", target,
                                         options_.api_url));
  }
  HttpRequest http;
  http.method = method;
  http.url = absolute ? target : options_.api_url + target;
  http.headers = {{"Accept", "application/vnd.github+json"},
                  {"X-GitHub-Api-Version", "2022-11-28"},
                  {"Authorization", "Bearer " + options_.token},
                  {"User-Agent", "kernelbot"}};
  if (body != nullptr) {
    http.headers.emplace_back("Content-Type", "application/json");
    http.body = body->dump();
  }
  http.timeout_s = options_.timeout_s;
  http.connect_timeout_s = std::min(10.0, options_.timeout_s);
  // The path without the host, for messages: shorter, and the same for the fake and the real API.
  std::string what = method + " " + (absolute ? target.substr(options_.api_url.size()) : target);

  std::string last_error;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    std::optional<double> server_wait;
    try {
      HttpResponse r = search::http_send(http);
      json j = json::parse(r.body, nullptr, false);
      if (j.is_discarded()) j = nullptr;
      std::string message = github_message(j, r.body);
      if ((r.status >= 200 && r.status < 300) || r.status == 422) {
        return Reply{r.status, std::move(j), next_link(r.header("link"))};
      }
      if (r.status == 401) {
        throw std::runtime_error(fmt::format("GitHub rejected the token ({}: HTTP 401: {}); check the token "
                                             "in [github].token_env",
                                             what, message));
      }
      if (r.status == 404) {
        throw std::runtime_error(fmt::format("GitHub repository {} not found or no access ({}: HTTP 404: {}); "
                                             "check [github].repository and the token's permissions",
                                             options_.repository, what, message));
      }
      if (r.status >= 500 || is_rate_limit(r, message)) {
        last_error = fmt::format("HTTP {}: {}", r.status, message);
        if (r.status < 500) {
          server_wait = search::retry_after_seconds(r);
          if (server_wait && *server_wait > options_.max_server_wait_s) {
            throw std::runtime_error(fmt::format("GitHub rate limit on {}: asks to wait {:.0f} s ({}); giving up",
                                                 what, *server_wait, last_error));
          }
        }
      } else {
        // 400, a 403 that is not a rate limit (missing permission), 409...: retrying cannot help.
        throw std::runtime_error(fmt::format("GitHub refused {}: HTTP {}: {}", what, r.status, message));
      }
    } catch (const HttpTransportError& e) {
      last_error = e.timed_out ? fmt::format("no reply within {:g} s", options_.timeout_s) : e.what();
    }
    if (attempt + 1 < options_.max_attempts) {
      double delay = search::backoff_delay_s(attempt, options_.base_delay_s, options_.max_delay_s, server_wait,
                                             std::uniform_real_distribution<double>(0.0, 1.0)(jitter_));
      spdlog::warn("github {}: {}; retry {}/{} in {:.1f} s", what, last_error, attempt + 1,
                   options_.max_attempts - 1, delay);
      wait(delay);
    }
  }
  throw std::runtime_error(fmt::format("GitHub {} failed after {} attempts: {}", what, options_.max_attempts,
                                       last_error));
}

GitHubForge::Reply GitHubForge::request_ok(const std::string& method, const std::string& target,
                                           const json* body) {
  Reply reply = request(method, target, body);
  if (reply.status == 422) {
    throw std::runtime_error(fmt::format("GitHub refused {} {}: HTTP 422: {}", method, target,
                                         github_message(reply.json, reply.json.dump())));
  }
  return reply;
}

json GitHubForge::find_open(const std::string& branch) {
  Reply reply = request_ok("GET", repo_path_ + "/pulls?head=" + url_encode(owner_ + ":" + branch) + "&state=open",
                           nullptr);
  if (!reply.json.is_array()) throw std::runtime_error("GitHub's list of pull requests is not a JSON array");
  for (const auto& p : reply.json) {
    // GitHub filters by head already; checking again guards against a proxy that ignores the query.
    if (p.is_object() && p.contains("head") && p["head"].value("ref", std::string()) == branch) return p;
  }
  return nullptr;
}

int64_t GitHubForge::count_open_bot_prs() {
  int64_t count = 0;
  std::string target = repo_path_ + "/pulls?state=open&per_page=100";
  for (int page = 0; !target.empty(); ++page) {
    if (page >= 100) throw std::runtime_error("GitHub's pull request list did not end after 100 pages");
    Reply reply = request_ok("GET", target, nullptr);
    if (!reply.json.is_array()) throw std::runtime_error("GitHub's list of pull requests is not a JSON array");
    for (const auto& p : reply.json) {
      if (p.is_object() && p.contains("head") && p["head"].value("ref", std::string()).rfind(kBotBranchPrefix, 0) == 0)
        ++count;
    }
    target = reply.next_url;
  }
  return count;
}

PullRequestOutcome GitHubForge::update(const json& existing, const PullRequest& pr) {
  int64_t number = existing.value("number", int64_t{0});
  json body{{"title", pr.title}, {"body", pr.body}};
  Reply reply = request_ok("PATCH", fmt::format("{}/pulls/{}", repo_path_, number), &body);
  std::string url = reply.json.is_object() ? reply.json.value("html_url", std::string()) : "";
  if (url.empty()) url = existing.value("html_url", std::string());
  spdlog::info("github: updated pull request #{} ({})", number, url);
  return PullRequestOutcome{false, number, url};
}

PullRequestOutcome GitHubForge::open_or_update(const PullRequest& pr) {
  if (json existing = find_open(pr.head); !existing.is_null()) return update(existing, pr);

  int64_t open = count_open_bot_prs();
  if (open >= options_.max_open_prs) {
    throw std::runtime_error(fmt::format(
        "not opening a pull request for {}: {} kernelbot pull requests are already open in {} "
        "([github].max_open_prs = {}); merge or close some first",
        pr.head, open, options_.repository, options_.max_open_prs));
  }

  json body{{"title", pr.title}, {"body", pr.body}, {"head", pr.head}, {"base", pr.base},
            {"draft", pr.draft || options_.draft}};
  Reply reply = request("POST", repo_path_ + "/pulls", &body);
  if (reply.status == 422) {
    std::string message = github_message(reply.json, reply.json.dump());
    // A PR opened between our lookup and our POST (another run, a retried POST that did land).
    if (message.find("A pull request already exists") != std::string::npos) {
      if (json again = find_open(pr.head); !again.is_null()) return update(again, pr);
    }
    throw std::runtime_error(fmt::format("GitHub refused to open a pull request for {}: HTTP 422: {}", pr.head,
                                         message));
  }
  PullRequestOutcome outcome{true, reply.json.value("number", int64_t{0}), reply.json.value("html_url", std::string())};

  std::vector<std::string> labels = pr.labels;
  for (const auto& l : options_.labels) {
    if (std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(l);
  }
  if (!labels.empty()) {
    json label_body{{"labels", labels}};
    request_ok("POST", fmt::format("{}/issues/{}/labels", repo_path_, outcome.number), &label_body);
  }
  spdlog::info("github: opened pull request #{} ({})", outcome.number, outcome.url);
  return outcome;
}

}  // namespace kb::bot
