// Reading a chat-completions answer, whole (one JSON body) or streamed (server-sent events:
// "data: {chunk}" lines, then "data: [DONE]"), into the parts a model answers with: the content
// (a string, or a list of {"type": "text", "text": ...} parts), reasoning apart from it
// (`reasoning_content` from DeepSeek and vLLM's reasoning parsers, `reasoning` from others,
// <think> blocks inside the content), a refusal, why it stopped, and what it cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "search/llm/chat_backend.h"

namespace kb::search {

// The answer as the server sent it, before <think> blocks are taken out of the content.
struct CompletionParts {
  std::string content;
  std::string reasoning;
  std::string refusal;
  std::string finish_reason;
  std::string model;
  std::optional<int64_t> prompt_tokens, completion_tokens;
};

// A whole JSON body; throws ChatError when it is not a chat completion.
CompletionParts parse_completion(const std::string& body);

// Server-sent events fed as they arrive, in pieces of any size.
class CompletionStream {
 public:
  void feed(std::string_view bytes);
  // Whether any event held a chunk: when none did, the server answered with a whole body.
  bool saw_events() const { return events_ > 0; }
  bool done() const { return done_; }  // "data: [DONE]" arrived
  // What arrived so far (the last line, unterminated, included). Throws ChatError for an error
  // event ({"error": ...} in the stream: vLLM, gateways).
  CompletionParts parts() const;
  // How much text arrived, for the token count of a request cut off mid-stream.
  size_t text_chars() const { return parts_.content.size() + parts_.reasoning.size(); }

 private:
  void line(std::string_view text);
  void event(const std::string& data);

  std::string pending_;  // an unterminated line
  std::string data_;     // the current event's data lines
  CompletionParts parts_;
  std::string error_;
  int64_t events_ = 0;
  bool done_ = false;
};

// The reply the proposer reads: <think> blocks moved from the content to the reasoning, and the
// tokens estimated (about 4 characters each) when the server sent no usage.
ChatReply to_reply(CompletionParts parts, const ChatRequest& request);

// About 4 characters per token: the prompt's size when the server did not count it.
int64_t estimated_prompt_tokens(const ChatRequest& request);

// Why a reply gives the proposer nothing to read, or "" when it does: a refusal; a reply cut off
// at the token limit before any answer (the budget went to reasoning).
std::string unusable_reply(const ChatReply& reply, int64_t max_tokens);

}  // namespace kb::search
