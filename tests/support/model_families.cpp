#include "tests/support/model_families.h"

#include <fstream>
#include <map>
#include <stdexcept>

#include "tests/support/openai_wire_format.h"

namespace kb::testing {

const char* const kMaxTokensRefused =
    R"({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})";
const char* const kTemperatureRefused =
    R"({"error": {"message": "Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}})";
const char* const kAzureAccessDenied =
    R"({"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}})";

namespace {

const char* const kOpenAiNoKey =
    R"({"error": {"message": "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": null}})";
const char* const kOpenAiWrongKey =
    R"({"error": {"message": "Incorrect API key provided: sk-***. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}})";
const char* const kDeepSeekWrongKey =
    R"({"error":{"message":"Authentication Fails, Your api key: ****is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}})";
const char* const kAzureNotFound = R"({"error":{"code":"404","message":"Resource not found"}})";
const char* const kLlamaNotFound = R"({"error":{"code":404,"message":"File Not Found","type":"not_found_error"}})";

std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.value("type", "") == "text") out += part.value("text", "");
  return out;
}

std::string all_messages(const nlohmann::json& body) {
  std::string out;
  for (const auto& m : body.value("messages", nlohmann::json::array())) out += text_of(m.value("content", "")) + "\n";
  return out;
}

std::string last_message(const nlohmann::json& body) {
  const auto messages = body.value("messages", nlohmann::json::array());
  return messages.empty() ? "" : text_of(messages.back().value("content", ""));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool is_ideas(const nlohmann::json& body) { return contains(all_messages(body), "# Task: propose"); }

bool asks_for_code(const nlohmann::json& body) {
  const std::string last = last_message(body);
  return contains(last, "# Task: implement") || contains(last, "# Task: fix") || contains(last, "# Task: merge");
}

// What the model thinks before it answers, and the decoy that thinking holds for the
// separate_reasoning family (an idea or a kernel the answer does not give).
std::string reasoning_of(const ScriptedModel& model, const nlohmann::json& body, bool with_decoy) {
  std::string out = "The kernel moves 12 bytes per element for 2 FLOPs: it is bound by memory traffic. ";
  if (!with_decoy) return out + "Wider loads and stores should help.";
  if (is_ideas(body))
    return out + "A first list:\n```json\n[{\"text\": \"" + std::string(kDecoyMarker) +
           ": unroll by 8\", \"family\": \"control_flow\", \"rationale\": \"a draft\", \"seed\": \"baseline\"}]\n```\n";
  return out + "A first draft:\n```cuda\n// " + kDecoyMarker + " SIM_WRONG\n" + model.code + "```\n";
}

std::string model_of(const nlohmann::json& body) { return body.value("model", std::string("test-model")); }

// Content in pieces of a few dozen characters, as a server streams it (tags and fences split).
std::vector<std::string> pieces_of(const std::string& text, size_t size = 37) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size(); at += size) out.push_back(text.substr(at, size));
  return out;
}

bool wants_usage(const nlohmann::json& body) {
  return body.contains("stream_options") && body["stream_options"].value("include_usage", false);
}

nlohmann::json usage_of(int64_t prompt, int64_t completion, int64_t reasoning = -1) {
  nlohmann::json u{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
  if (reasoning >= 0) {
    u["completion_tokens_details"] = {{"reasoning_tokens", reasoning}};
    u["prompt_tokens_details"] = {{"cached_tokens", 0}};
  }
  return u;
}

nlohmann::json chunk(const nlohmann::json& body, const nlohmann::json& delta, const nlohmann::json& finish = nullptr) {
  return {{"id", "chatcmpl-family"},
          {"object", "chat.completion.chunk"},
          {"created", 1767225600},
          {"model", model_of(body)},
          {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}};
}

// How one family writes a reply: the reasoning field it uses ("" for none), whether the content
// starts with a <think> draft, whether usage counts reasoning tokens, and Azure's first chunk.
struct ReplyStyle {
  std::string reasoning_field;
  bool think_in_content = false;
  bool reasoning_tokens = false;
  bool azure_filter_chunk = false;
};

LoopbackResponse reply(const ScriptedModel& model, const nlohmann::json& body, const ReplyStyle& style) {
  const bool decoys = !style.reasoning_field.empty() || style.think_in_content;
  const std::string answer = scripted_answer(model, body);
  const std::string reasoning = reasoning_of(model, body, decoys);
  const std::string content = style.think_in_content
                                  ? "<think>\n" + reasoning_of(model, body, true) + "</think>\n\n" + answer
                                  : answer;
  const int64_t prompt = estimated_prompt_tokens(body);
  const int64_t thought = static_cast<int64_t>(reasoning.size() / 4);
  const int64_t completion = static_cast<int64_t>(content.size() / 4) + thought;
  const nlohmann::json usage = usage_of(prompt, completion, style.reasoning_tokens ? thought : -1);
  if (!body.value("stream", false)) {
    nlohmann::json message{{"role", "assistant"}, {"content", content}};
    if (!style.reasoning_field.empty()) message[style.reasoning_field] = reasoning;
    nlohmann::json whole = nlohmann::json::parse(completion_body(message));
    whole["model"] = model_of(body);
    whole["usage"] = usage;
    return json_response(200, whole.dump());
  }
  std::vector<std::string> events;
  if (style.azure_filter_chunk)
    events.push_back(
        sse_event({{"choices", nlohmann::json::array()},
                   {"created", 0},
                   {"id", ""},
                   {"model", ""},
                   {"object", ""},
                   {"prompt_filter_results",
                    {{{"prompt_index", 0},
                      {"content_filter_results", {{"hate", {{"filtered", false}, {"severity", "safe"}}}}}}}}}));
  events.push_back(sse_event(chunk(body, {{"role", "assistant"}, {"content", ""}})));
  if (!style.reasoning_field.empty())
    for (const auto& p : pieces_of(reasoning)) events.push_back(sse_event(chunk(body, {{style.reasoning_field, p}})));
  for (const auto& p : pieces_of(content)) events.push_back(sse_event(chunk(body, {{"content", p}})));
  events.push_back(sse_event(chunk(body, nlohmann::json::object(), "stop")));
  if (wants_usage(body)) {
    nlohmann::json last = chunk(body, nlohmann::json::object());
    last["choices"] = nlohmann::json::array();
    last["usage"] = usage;
    events.push_back(sse_event(last));
  }
  events.push_back(kSseDone);
  return sse_response(events);
}

std::string header(const LoopbackRequest& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

std::optional<nlohmann::json> body_of(const LoopbackRequest& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

LoopbackResponse bad_json() {
  return json_response(
      400,
      R"({"error": {"message": "We could not parse the JSON body of your request.", "type": "invalid_request_error", "param": null, "code": null}})");
}

LoopbackResponse reasoning_server(const ScriptedModel& model, const FamilyOptions& options, const LoopbackRequest& r) {
  const std::string auth = header(r, "authorization");
  if (auth.empty()) return json_response(401, kOpenAiNoKey);
  if (auth != "Bearer " + options.key) return json_response(401, kOpenAiWrongKey);
  if (r.path != "/v1/chat/completions")
    return json_response(404, nlohmann::json{{"error",
                                              {{"message", "Invalid URL (" + r.method + " " + r.path + ")"},
                                               {"type", "invalid_request_error"},
                                               {"param", nullptr},
                                               {"code", nullptr}}}}
                                  .dump());
  auto body = body_of(r);
  if (!body) return bad_json();
  if (body->contains("max_tokens")) return json_response(400, kMaxTokensRefused);
  if (body->contains("temperature")) {
    std::string refused = kTemperatureRefused;
    const std::string sent = (*body)["temperature"].dump();
    refused.replace(refused.find("0.3"), 3, sent);
    return json_response(400, refused);
  }
  return reply(model, *body, {"", false, true, false});
}

LoopbackResponse separate_reasoning_server(const ScriptedModel& model, const FamilyOptions& options,
                                           const LoopbackRequest& r) {
  if (header(r, "authorization") != "Bearer " + options.key) return json_response(401, kDeepSeekWrongKey);
  if (r.path != "/v1/chat/completions" && r.path != "/chat/completions")
    return json_response(404, R"({"error":{"message":"Not Found","type":"invalid_request_error"}})");
  auto body = body_of(r);
  if (!body) return bad_json();
  return reply(model, *body, {"reasoning_content", true, true, false});
}

LoopbackResponse local_server(const ScriptedModel& model, const FamilyOptions& options, const LoopbackRequest& r) {
  if (r.path != "/v1/chat/completions" && r.path != "/chat/completions") return json_response(404, kLlamaNotFound);
  auto body = body_of(r);
  if (!body)
    return json_response(400, R"({"error":{"code":400,"message":"invalid JSON","type":"invalid_request_error"}})");
  if (local_refuses(*body, options.n_ctx)) {
    const int64_t prompt = estimated_prompt_tokens(*body);
    const int64_t asked = prompt + requested_reply_limit(*body).value_or(0);
    nlohmann::json error{{"code", 400},
                         {"message", "request (" + std::to_string(asked) +
                                         " tokens) exceeds the available context size (" +
                                         std::to_string(options.n_ctx) + " tokens), try increasing it"},
                         {"type", "exceed_context_size_error"},
                         {"n_prompt_tokens", prompt},
                         {"n_ctx", options.n_ctx}};
    return json_response(400, nlohmann::json{{"error", error}}.dump());
  }
  return reply(model, *body, {"", false, false, false});
}

LoopbackResponse azure_server(const ScriptedModel& model, const FamilyOptions& options, const LoopbackRequest& r) {
  if (header(r, "api-key") != options.key || r.headers.count("authorization"))
    return json_response(401, kAzureAccessDenied);
  if (r.target != "/openai/deployments/" + options.deployment + "/chat/completions?api-version=" + options.api_version)
    return json_response(404, kAzureNotFound);
  auto body = body_of(r);
  if (!body) return bad_json();
  return reply(model, *body, {"", false, false, true});
}

}  // namespace

const std::vector<ModelFamily>& all_model_families() {
  static const std::vector<ModelFamily> families = {ModelFamily::reasoning, ModelFamily::separate_reasoning,
                                                    ModelFamily::local, ModelFamily::azure};
  return families;
}

std::string family_name(ModelFamily family) {
  switch (family) {
    case ModelFamily::reasoning: return "reasoning";
    case ModelFamily::separate_reasoning: return "separate_reasoning";
    case ModelFamily::local: return "local";
    case ModelFamily::azure: return "azure";
  }
  return "?";
}

std::string ScriptedModel::default_ideas() {
  return R"([{"text": "Vectorize: float4 loads and stores in a grid-stride loop, in 256-thread blocks, the last n % 4 elements in scalar code", "family": "memory_access", "rationale": "16-byte accesses cut memory instructions 4x; 256-thread blocks lift the occupancy cap", "seed": "baseline"}])";
}

std::string replay_reply_code(const std::filesystem::path& replay, const std::string& key) {
  std::ifstream in(replay);
  std::string line;
  while (std::getline(in, line)) {
    auto entry = nlohmann::json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object() || entry.value("key", "") != key) continue;
    const std::string reply = entry.value("reply", "");
    const std::string open = "```cuda\n";
    size_t from = reply.find(open);
    size_t to = from == std::string::npos ? std::string::npos : reply.find("```", from + open.size());
    if (to == std::string::npos) break;
    return reply.substr(from + open.size(), to - from - open.size());
  }
  throw std::runtime_error(replay.string() + " has no reply with a ```cuda block under key " + key);
}

std::string scripted_answer(const ScriptedModel& model, const nlohmann::json& body) {
  if (is_ideas(body)) {
    if (contains(last_message(body), "(round 1 of"))
      return "The profile shows the kernel far from its memory floor.\n```json\n" + model.ideas + "\n```";
    return "Nothing more to try.\n```json\n[]\n```";
  }
  if (asks_for_code(body))
    return "Here is the variant:\n```cuda\n" + model.code + (model.code.ends_with("\n") ? "" : "\n") +
           "```\nWider accesses in a grid-stride loop.";
  return "ok";
}

LoopbackHttpServer::Handler family_handler(ModelFamily family, ScriptedModel model, FamilyOptions options) {
  return [family, model = std::move(model), options = std::move(options)](const LoopbackRequest& r) {
    switch (family) {
      case ModelFamily::reasoning: return reasoning_server(model, options, r);
      case ModelFamily::separate_reasoning: return separate_reasoning_server(model, options, r);
      case ModelFamily::local: return local_server(model, options, r);
      case ModelFamily::azure: return azure_server(model, options, r);
    }
    return json_response(500, R"({"error":"no such family"})");
  };
}

int64_t estimated_prompt_tokens(const nlohmann::json& body) {
  return static_cast<int64_t>(all_messages(body).size() / 4);
}

std::optional<int64_t> requested_reply_limit(const nlohmann::json& body) {
  for (const char* key : {"max_tokens", "max_completion_tokens"})
    if (body.contains(key) && body[key].is_number_integer()) return body[key].get<int64_t>();
  return std::nullopt;
}

bool local_refuses(const nlohmann::json& body, int64_t n_ctx) {
  const int64_t prompt = estimated_prompt_tokens(body);
  return prompt >= n_ctx || prompt + requested_reply_limit(body).value_or(0) > n_ctx;
}

bool fills_context(const nlohmann::json& body, int64_t n_ctx) {
  auto limit = requested_reply_limit(body);
  if (!limit || local_refuses(body, n_ctx)) return false;
  return n_ctx - estimated_prompt_tokens(body) - *limit <= kContextSlack;
}

std::string family_shape_problem(ModelFamily family, const std::vector<LoopbackRequest>& requests,
                                 const FamilyOptions& options) {
  if (requests.empty()) return "the server got no request";
  std::vector<nlohmann::json> bodies;
  for (const auto& r : requests) {
    auto body = body_of(r);
    if (!body) return "a request's body is not a JSON object: " + r.body.substr(0, 200);
    bodies.push_back(*body);
  }
  switch (family) {
    case ModelFamily::reasoning:
    case ModelFamily::separate_reasoning: {
      for (const auto& r : requests)
        if (header(r, "authorization") != "Bearer " + options.key)
          return "a request without the Bearer key: authorization \"" + header(r, "authorization") + "\"";
      if (family == ModelFamily::separate_reasoning) return "";
      const auto& last = bodies.back();
      if (!last.contains("max_completion_tokens")) return "the last request has no max_completion_tokens";
      if (last.contains("max_tokens")) return "the last request has max_tokens";
      if (last.contains("temperature")) return "the last request has a temperature";
      return "";
    }
    case ModelFamily::local: {
      bool context_mattered = false;
      std::map<std::string, std::vector<bool>> exchanges;  // messages -> refused, request by request
      for (size_t i = 0; i < requests.size(); ++i) {
        if (requests[i].headers.count("authorization") || requests[i].headers.count("api-key"))
          return "a request sent a key to a server that takes none";
        const bool refused = local_refuses(bodies[i], options.n_ctx);
        context_mattered = context_mattered || refused || fills_context(bodies[i], options.n_ctx);
        exchanges[bodies[i].value("messages", nlohmann::json::array()).dump()].push_back(refused);
      }
      if (!context_mattered)
        return "no request was refused as larger than the context or fitted to it: the context did not matter";
      // The same messages may be asked again later (the run after the search): a refusal is
      // followed by a request that fits before they are refused again.
      for (const auto& [messages, refused] : exchanges) {
        for (size_t i = 1; i < refused.size(); ++i)
          if (refused[i - 1] && refused[i])
            return "the same messages were refused as larger than the context twice in a row: " +
                   messages.substr(0, 200);
        if (refused.back()) return "an exchange's last request was still larger than the context";
      }
      return "";
    }
    case ModelFamily::azure: {
      const std::string target = "/openai/deployments/" + options.deployment +
                                 "/chat/completions?api-version=" + options.api_version;
      for (const auto& r : requests) {
        if (r.target != target) return "a request at " + r.target + ", not " + target;
        if (header(r, "api-key") != options.key) return "a request without the key in api-key";
        if (r.headers.count("authorization")) return "a request with an Authorization header";
      }
      return "";
    }
  }
  return "unknown family";
}

}  // namespace kb::testing
