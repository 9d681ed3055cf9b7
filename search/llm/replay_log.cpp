#include "search/llm/replay_log.h"
#include "common/file_io.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <sstream>

#include "common/clock.h"
#include "common/secret_redactor.h"
#include "core/errors.h"

namespace kb::search {
namespace {

// An error page can be long (a gateway's HTML); its head and tail say what happened.
constexpr size_t kMaxFailedBodyBytes = 16'000;

const char* failure_name(ChatFailure kind) {
  switch (kind) {
    case ChatFailure::configuration: return "configuration";
    case ChatFailure::answer: return "answer";
    case ChatFailure::service: break;
  }
  return "service";
}

ChatFailure failure_from_name(const std::string& name) {
  if (name == "configuration") return ChatFailure::configuration;
  if (name == "answer") return ChatFailure::answer;
  return ChatFailure::service;
}

ReplayEntry entry_from_json(const nlohmann::json& j) {
  ReplayEntry e;
  e.step = j.at("step").get<std::string>();
  e.key = j.at("key").get<std::string>();
  if (!j.contains("reply") && j.contains("error") && j["error"].is_object()) {
    e.error_kind = failure_from_name(j["error"].value("kind", "service"));
    e.error = j["error"].value("message", "the recorded request failed");
    e.prompt_too_long = j["error"].value("prompt_too_long", false);
    if (j["error"].contains("context") && j["error"]["context"].is_number_integer())
      e.context = j["error"]["context"].get<int64_t>();
  } else {
    e.reply = j.at("reply").get<std::string>();
  }
  if (j.contains("request")) e.request = j["request"];
  if (j.contains("finish_reason") && j["finish_reason"].is_string()) e.finish_reason = j["finish_reason"];
  if (j.contains("usage") && j["usage"].is_object()) {
    e.prompt_tokens = j["usage"].value("prompt_tokens", int64_t{0});
    e.completion_tokens = j["usage"].value("completion_tokens", int64_t{0});
  }
  return e;
}

void add_line(ReplayFile& file, const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(where + ": expected a JSON object");
  if (j.contains("kernelbot_replay")) {
    file.header = j;
    return;
  }
  if (j.value("step", "") == "result") {
    file.result = j;
    return;
  }
  if (j.contains("failed_attempt")) {
    file.failed_attempts.push_back(j);
    return;
  }
  try {
    file.entries.push_back(entry_from_json(j));
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": an exchange needs string fields step, key and reply (or an error object) (" + e.what() +
                ")");
  }
}

}  // namespace

ReplayFile read_replay_file(const std::filesystem::path& path) {
  const std::optional<std::string> contents = try_read_text_file(path, kDataFileLimitBytes);
  if (!contents) throw Error("cannot read the replay file " + path.string());
  std::string text = *contents;
  ReplayFile file;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_array()) throw Error(path.string() + ": not a valid JSON array");
    for (size_t i = 0; i < j.size(); ++i) add_line(file, j[i], fmt::format("{}: element {}", path.string(), i));
    return file;
  }
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    std::string where = fmt::format("{}:{}", path.string(), number);
    if (j.is_discarded()) throw Error(where + ": not valid JSON");
    add_line(file, j, where);
  }
  return file;
}

ReplayChatBackend::ReplayChatBackend(const std::filesystem::path& path) : path_(path), file_(read_replay_file(path)) {
  for (const auto& e : file_.entries) index_.emplace(std::pair{e.step, e.key}, &e);  // the first of duplicates wins
}

ChatReply ReplayChatBackend::complete(const ChatRequest& request) {
  auto it = index_.find({request.step, request.key});
  // Short, as it is a candidate's reason in the tree; describe() names the file.
  if (it == index_.end()) throw ReplayMissing(fmt::format("no reply recorded for {} {}", request.step, request.key));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++served_;
    asked_.insert(it->first);
  }
  if (it->second->prompt_too_long) throw PromptTooLong(it->second->error, it->second->context);
  if (it->second->error_kind) throw ChatError(it->second->error, *it->second->error_kind);
  ChatReply reply;
  reply.content = it->second->reply;
  reply.finish_reason = it->second->finish_reason;
  reply.model = file_.header.value("model", "replay");
  const nlohmann::json& asked = it->second->request;
  reply.to_excerpt = asked.is_object() && asked.value("excerpt", false);
  return reply;
}

std::vector<std::string> ReplayChatBackend::unasked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [step_key, entry] : index_)
    if (!asked_.count(step_key)) out.push_back(step_key.first + " " + step_key.second);
  return out;
}

void ReplayChatBackend::finish(const SearchResult& /*result*/) {
  // A search that stops early leaves replies unused; one whose keys do not line up with the
  // recording does too, and this is where that shows.
  auto unused = unasked();
  if (unused.empty()) return;
  std::string list;
  for (const auto& k : unused) list += (list.empty() ? "" : ", ") + k;
  spdlog::info("{}: {} recorded replies were not asked for: {}", path_.string(), unused.size(), list);
}

TokenUsage ReplayChatBackend::usage() const {
  std::lock_guard<std::mutex> lock(mutex_);
  TokenUsage u;
  u.requests = served_;
  return u;
}

RecordingChatBackend::RecordingChatBackend(std::unique_ptr<ChatBackend> inner, const std::filesystem::path& path,
                                           nlohmann::json header)
    : inner_(std::move(inner)), path_(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  out_.open(path, std::ios::trunc);
  if (!out_) throw Error("cannot write the recording " + path.string());
  header["kernelbot_replay"] = 1;
  header["created"] = now_iso8601();
  header["backend"] = inner_->describe();
  append(header);
}

void RecordingChatBackend::append(const nlohmann::json& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line.dump() << "\n";
  out_.flush();
}

nlohmann::json RecordingChatBackend::exchange_line(const ChatRequest& request) const {
  nlohmann::json prompt = nlohmann::json::array();
  for (const auto& m : request.messages) prompt.push_back({{"role", m.role}, {"content", redact(m.content)}});
  return {{"step", request.step}, {"key", request.key}, {"request", request.summary}, {"prompt", std::move(prompt)}};
}

ChatReply RecordingChatBackend::complete(const ChatRequest& request) {
  ChatRequest observed = request;
  observed.on_failed_attempt = [this, &request](const FailedAttempt& a) {
    append(
        {{"step", request.step},
         {"key", request.key},
         {"failed_attempt",
          {{"status", a.status}, {"body", untrusted_text(a.body, kMaxFailedBodyBytes)}, {"error", redact(a.error)}}}});
    if (request.on_failed_attempt) request.on_failed_attempt(a);
  };
  ChatReply reply;
  try {
    reply = inner_->complete(observed);
  } catch (const ReplayMissing&) {
    throw;  // nothing was asked: a replay that has no such reply
  } catch (const ChatError& e) {
    nlohmann::json line = exchange_line(request);
    line["error"] = {{"kind", failure_name(e.kind)}, {"message", redact(e.what())}};
    if (const auto* too_long = dynamic_cast<const PromptTooLong*>(&e)) {
      line["error"]["prompt_too_long"] = true;
      if (too_long->context) line["error"]["context"] = *too_long->context;
    }
    append(line);
    throw;
  }
  nlohmann::json line = exchange_line(request);
  line["reply"] = reply.content;
  line["finish_reason"] = reply.finish_reason;
  line["usage"] = {{"prompt_tokens", reply.prompt_tokens}, {"completion_tokens", reply.completion_tokens}};
  line["model"] = reply.model;
  if (!reply.reasoning.empty()) line["reasoning"] = reply.reasoning;
  append(line);
  return reply;
}

void RecordingChatBackend::finish(const SearchResult& result) {
  const CandidateRecord* best = result.best();
  append({{"step", "result"},
          {"best_id", result.best_id},
          {"best_speedup", best ? best->speedup() : 0.0},
          {"stop_reason", result.stop_reason},
          {"candidates", result.budget.candidates}});
  inner_->finish(result);
}

}  // namespace kb::search
