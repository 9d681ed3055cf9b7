// Loopback servers that answer as each family of chat endpoint documents, all in front of the
// same scripted model, so that a test can drive a whole search (`kernelbot search`, `kernelbot
// run`, or the engine with the simulated evaluator) through each family's quirks:
//   reasoning           OpenAI's reasoning models (o-series, gpt-5) on api.openai.com or a
//                       gateway: a Bearer key, 400s for max_tokens and temperature, usage with
//                       reasoning tokens.
//   separate_reasoning  DeepSeek-R1, vLLM or SGLang with a reasoning parser: reasoning_content
//                       before the content, and a <think> draft at the start of the content;
//                       both hold decoys that must never be taken for the answer (an ideas list
//                       ahead of the answer's, which a reader of the first JSON block would take,
//                       and a draft of the code).
//   local               llama.cpp server (or vLLM) with a small context and no key: a request
//                       whose prompt and reply limit exceed the context is refused with
//                       llama.cpp's exceed_context_size_error body, naming both sizes.
//   azure               Azure OpenAI: only the deployment's URL with its api-version answers, and
//                       the key comes in an `api-key` header.
// The handlers keep no state (a request's answer depends on it alone), so the recorded requests
// (LoopbackHttpServer::requests) are all a test needs to check the shape each family got.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/loopback_http_server.h"

namespace kb::testing {

enum class ModelFamily { reasoning, separate_reasoning, local, azure };

const std::vector<ModelFamily>& all_model_families();
std::string family_name(ModelFamily family);  // "reasoning", "separate_reasoning", "local", "azure"
// How GoogleTest prints a family (a parameter of the tests): by name, not as bytes.
inline void PrintTo(ModelFamily family, std::ostream* os) { *os << family_name(family); }

// OpenAI's answers to a reasoning model asked with max_tokens or a temperature, word for word
// (the temperature's with the value sent: 0.3 here).
extern const char* const kMaxTokensRefused;
extern const char* const kTemperatureRefused;
// Azure's answer to a request without its key in `api-key`.
extern const char* const kAzureAccessDenied;

// Marks the decoys of the separate_reasoning family (an idea and a kernel in its reasoning):
// a candidate or idea holding it was read from the reasoning.
inline constexpr const char* kDecoyMarker = "DECOY-FROM-REASONING";

// The model behind every family. It answers the ideas prompt of round 1 ("# Task: propose ...
// (round 1 of N)") with `ideas` (a JSON array) in a ```json block, later rounds' with no ideas,
// the implement, repair and crossover prompts with `code` in a ```cuda block, and anything
// else (the check before a search) with "ok".
struct ScriptedModel {
  std::string code;
  std::string ideas = default_ideas();

  static std::string default_ideas();  // one memory_access idea on the seed "baseline"
};

// What the servers want and how small they are.
struct FamilyOptions {
  std::string key = "sk-family-test";      // reasoning, separate_reasoning: Bearer; azure: api-key
  std::string deployment = "gpt-4.1";      // azure: /openai/deployments/<deployment>/chat/completions
  std::string api_version = "2024-10-21";  // azure: ?api-version=<api_version>
  int64_t n_ctx = 8192;                    // local: the context, prompt and reply together
};

// The code of the first ```cuda block of the reply a kernelbot recording (examples/replays/)
// holds under `key`, e.g. the saxpy replay's vectorized winner "r1-i0-b0". Throws
// std::runtime_error when there is none.
std::string replay_reply_code(const std::filesystem::path& replay, const std::string& key);

// The reply of `model` to a chat-completions request body: the answer only, no reasoning.
std::string scripted_answer(const ScriptedModel& model, const nlohmann::json& body);

// The handler of a server of `family` in front of `model`.
LoopbackHttpServer::Handler family_handler(ModelFamily family, ScriptedModel model, FamilyOptions options = {});

// The local server's estimate of a request's prompt: its messages' text at 4 characters a token.
int64_t estimated_prompt_tokens(const nlohmann::json& body);
// The reply limit a request asks for (max_tokens or max_completion_tokens), if any.
std::optional<int64_t> requested_reply_limit(const nlohmann::json& body);
// Whether the local server refuses this request as larger than its context.
bool local_refuses(const nlohmann::json& body, int64_t n_ctx);
// Whether a request the local server takes asks for all but a few tokens (kContextSlack) of what
// its context leaves after the prompt: a reply limit fitted to the context, not one that fits by
// chance.
inline constexpr int64_t kContextSlack = 32;
bool fills_context(const nlohmann::json& body, int64_t n_ctx);

// "" when the requests a server of `family` received have that family's shape (the key where the
// family wants it, the parameters it takes, the URL it answers at); otherwise what is wrong:
//   reasoning           every request with the Bearer key; the last one with
//                       max_completion_tokens and neither max_tokens nor a temperature
//   separate_reasoning  every request with the Bearer key
//   local               no key sent; a request refused as larger than the context or one that
//                       fills it (the context mattered); no exchange (the same messages) refused
//                       twice in a row, and the last request of each fits
//   azure               every request at the deployment's URL with its api-version, the key in
//                       api-key and no Authorization header
std::string family_shape_problem(ModelFamily family, const std::vector<LoopbackRequest>& requests,
                                 const FamilyOptions& options = {});

}  // namespace kb::testing
