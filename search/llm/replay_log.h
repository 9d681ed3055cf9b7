// Recorded model exchanges, so a search can be reproduced without the model (tests, demos,
// bug reports). The format, one JSON object per line (a JSON array of the same objects is
// read too):
//
//   {"kernelbot_replay": 1, "kernel": "saxpy", "model": "...", "created": "...", "note": "..."}
//   {"step": "ideas", "key": "r1", "request": {...}, "reply": "<the model's text>",
//    "finish_reason": "stop", "usage": {"prompt_tokens": 1200, "completion_tokens": 300}}
//   {"step": "implement", "key": "r1-i0-b0", ...}
//   {"step": "repair", "key": "r1-i1-b0", ...}
//   {"step": "result", "best_id": "r1-i0-b0", "best_speedup": 4.1, "stop_reason": "..."}
//
// `step` is ideas | implement | crossover | repair; `key` names the exchange as exchange_keys.h
// describes: "r<round>" for a round's ideas ("r<round>-retry" for the reminder),
// "r<round>-i<idea>-b<branch>" for implement, "r<round>-crossover-b<branch>" for crossover, and
// for repair the key of the exchange that wrote the failed code. Replies are matched by
// (step, key), so the order of lines does not matter and concurrent requests replay
// deterministically. `request` is a summary for people (what was
// asked); the header and result lines are optional. Record with `kernelbot search --record FILE`
// or the environment variable KERNELBOT_RECORD=FILE.
//
// A recording also keeps what a bug report needs (secrets redacted): every exchange's full
// prompt (`prompt`: the messages as sent), each failed attempt before its retry
//   {"step": "implement", "key": "r1-i0-b1", "failed_attempt": {"status": 503, "body": "...", "error": "..."}}
// and an exchange that failed for good, in place of its reply
//   {"step": "ideas", "key": "r2", "request": {...}, "prompt": [...], "error": {"kind": "service", "message": "..."}}
// A replay answers such an exchange with the same failure. Files without these lines (older
// recordings, hand-written replays) replay as before.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/llm/chat_backend.h"

namespace kb::search {

// One recorded exchange.
struct ReplayEntry {
  std::string step;
  std::string key;
  nlohmann::json request = nlohmann::json::object();
  std::string reply;
  std::string finish_reason = "stop";
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  // An exchange that failed for good: replayed as this ChatError instead of a reply.
  std::optional<ChatFailure> error_kind;
  std::string error;
  // The server refused the prompt as too long ("prompt_too_long": true, and "context" when it
  // named one): replayed as PromptTooLong, so the proposer asks again as it did.
  bool prompt_too_long = false;
  std::optional<int64_t> context;
};

// A whole recording: header, exchanges, outcome.
struct ReplayFile {
  nlohmann::json header = nlohmann::json::object();
  std::vector<ReplayEntry> entries;
  std::vector<nlohmann::json>
      failed_attempts;  // evidence only: not replayed (the retries succeeded or the error line follows)
  nlohmann::json result = nlohmann::json::object();  // the recorded run's outcome, when written
};

// Throws kb::Error naming the file and line of anything it cannot read.
ReplayFile read_replay_file(const std::filesystem::path& path);

// Serves recorded replies; spends no tokens. A missing reply throws ReplayMissing ("no reply
// recorded for crossover r2-crossover-b1"): a normal outcome for a hand-written replay.
class ReplayChatBackend : public ChatBackend {
 public:
  explicit ReplayChatBackend(const std::filesystem::path& path);
  ChatReply complete(const ChatRequest& request) override;
  TokenUsage usage() const override;
  std::string describe() const override { return "replay of " + path_.string(); }
  void finish(const SearchResult& result) override;  // logs the replies never asked for
  const ReplayFile& file() const { return file_; }
  // "crossover r2-crossover-b0" for each recorded reply not asked for so far.
  std::vector<std::string> unasked() const;

 private:
  std::filesystem::path path_;
  ReplayFile file_;
  std::map<std::pair<std::string, std::string>, const ReplayEntry*> index_;
  mutable std::mutex mutex_;
  int64_t served_ = 0;
  std::set<std::pair<std::string, std::string>> asked_;
};

// Passes requests to `inner` and appends each exchange to `path` as it completes (flushed, so
// a crash keeps what was recorded), and the search's outcome at the end.
class RecordingChatBackend : public ChatBackend {
 public:
  RecordingChatBackend(std::unique_ptr<ChatBackend> inner, const std::filesystem::path& path, nlohmann::json header);
  ChatReply complete(const ChatRequest& request) override;
  TokenUsage usage() const override { return inner_->usage(); }
  std::string describe() const override { return inner_->describe() + ", recording to " + path_.string(); }
  void preflight() override { inner_->preflight(); }  // not an exchange of the search: not recorded
  std::optional<int64_t> context_tokens() const override { return inner_->context_tokens(); }
  void finish(const SearchResult& result) override;

 private:
  void append(const nlohmann::json& line);
  nlohmann::json exchange_line(const ChatRequest& request) const;
  std::unique_ptr<ChatBackend> inner_;
  std::filesystem::path path_;
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace kb::search
