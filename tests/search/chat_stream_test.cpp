// Streamed replies (server-sent events): assembled from chunks cut anywhere, an idle limit
// instead of a limit on the whole reply, usage from the last chunk or estimated, error events,
// a server that refuses stream_options, and the tokens of a reply cut off mid-stream.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "search/llm/chat_completion.h"
#include "search/llm/openai_chat_client.h"
#include "search/llm/token_ledger.h"
#include "tests/search/openai_wire.h"

using namespace kb::search;
using namespace kb::testing;

namespace {

std::shared_ptr<TokenLedger> ledger() { return std::make_shared<TokenLedger>(0, 0, 0, 0); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(CompletionStream, AssemblesChunksCutAnywhere) {
  const std::string events = ": keep-alive\r\n\r\n" + sse_chunk({{"role", "assistant"}, {"content", "Hel"}}) +
                             "event: message\n" + sse_chunk({{"content", "lo"}, {"reasoning", "why"}}) +
                             sse_chunk(nlohmann::json::object(), "stop") + sse_usage(7, 2) + kSseDone;
  for (size_t piece : {1u, 3u, 17u, 1000u}) {
    CompletionStream stream;
    for (size_t at = 0; at < events.size(); at += piece) stream.feed(std::string_view(events).substr(at, piece));
    ASSERT_TRUE(stream.saw_events());
    EXPECT_TRUE(stream.done());
    CompletionParts parts = stream.parts();
    EXPECT_EQ(parts.content, "Hello") << piece;
    EXPECT_EQ(parts.reasoning, "why");
    EXPECT_EQ(parts.finish_reason, "stop");
    EXPECT_EQ(parts.prompt_tokens, 7);
    EXPECT_EQ(parts.completion_tokens, 2);
  }
  CompletionStream multi_line;  // one event's data over two lines, and no blank line at the end
  multi_line.feed("data: {\"choices\":[{\"delta\":{\"content\":\n");
  multi_line.feed("data: \"x\"},\"finish_reason\":\"stop\"}]}");
  EXPECT_EQ(multi_line.parts().content, "x");
  CompletionStream error;
  error.feed(sse_chunk({{"content", "par"}}) +
             "data: {\"error\":{\"message\":\"The server had an error while processing your request.\"}}\n\n");
  EXPECT_THROW(error.parts(), ChatError);
  CompletionStream plain;  // a whole JSON body: no events
  plain.feed(completion_body({{"role", "assistant"}, {"content", "x"}}));
  EXPECT_FALSE(plain.saw_events());
}

TEST(ChatStream, AReplyMayTakeLongerThanTimeoutWhileTokensKeepComing) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    std::vector<std::string> pieces{sse_chunk({{"role", "assistant"}, {"content", ""}})};
    for (int i = 0; i < 8; ++i) pieces.push_back(sse_chunk({{"content", std::to_string(i)}}));
    pieces.push_back(sse_chunk(nlohmann::json::object(), "stop"));
    pieces.push_back(sse_usage(40, 8));
    pieces.push_back(kSseDone);
    return sse_response(pieces, 0.15);  // about 1.8 s in all
  });
  auto llm = llm_for(server);
  llm.timeout_s = 0.6;
  OpenAiChatClient client(llm, ledger(), fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  ChatReply reply = client.complete(hello());
  EXPECT_GT(seconds_since(t0), 1.2);
  EXPECT_EQ(reply.content, "01234567");
  EXPECT_FALSE(reply.usage_estimated);
  EXPECT_EQ(reply.completion_tokens, 8);
  EXPECT_EQ(client.attempts(), 1);
  auto body = nlohmann::json::parse(server.requests()[0].body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
}

TEST(ChatStream, SilenceIsATimeoutAndTheCutOffRequestsTokensAreEstimated) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    auto r = sse_response({sse_chunk({{"role", "assistant"}, {"content", std::string(400, 'x')}})});
    r.stream.emplace_back(10.0, kSseDone);  // then nothing for 10 s
    return r;
  });
  auto llm = llm_for(server);
  llm.timeout_s = 0.3;
  llm.max_retries = 1;
  auto used = ledger();
  OpenAiChatClient client(llm, used, fast_retries());
  auto t0 = std::chrono::steady_clock::now();
  try {
    client.complete(hello());
    FAIL() << "expected an error";
  } catch (const ChatError& e) {
    EXPECT_NE(std::string(e.what()).find("no data for [llm].timeout_s = 0.3 s"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind, ChatFailure::service);
  }
  EXPECT_LT(seconds_since(t0), 2.0);
  EXPECT_EQ(client.attempts(), 2);
  TokenUsage usage = used->usage();
  EXPECT_EQ(usage.requests, 0);
  // Per attempt: the prompt (about 4 characters a token) and the 400 characters that came.
  const int64_t prompt = estimated_prompt_tokens(hello());
  EXPECT_EQ(usage.prompt_tokens, 2 * prompt);
  EXPECT_EQ(usage.completion_tokens, 2 * 100);
  EXPECT_EQ(usage.estimated_tokens, usage.total());
}

TEST(ChatStream, WithoutAUsageChunkTheTokensAreEstimated) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return sse_response({sse_chunk({{"role", "assistant"}, {"content", "abcdefgh"}}),
                         sse_chunk(nlohmann::json::object(), "stop"), kSseDone});
  });
  OpenAiChatClient client(llm_for(server), ledger(), fast_retries());
  ChatReply reply = client.complete(hello());
  EXPECT_TRUE(reply.usage_estimated);
  EXPECT_EQ(reply.completion_tokens, 3);
  EXPECT_EQ(client.usage().requests, 1);
}

TEST(ChatStream, AnErrorEventOrAStreamCutShortIsRetried) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const LoopbackRequest&) {
    switch (calls++) {
      case 0:
        return sse_response({sse_chunk({{"content", "par"}}),
                             "data: {\"error\":{\"message\":\"The server had an error while processing your "
                             "request.\",\"type\":\"server_error\"}}\n\n"});
      case 1: return sse_response({sse_chunk({{"content", "cut"}})});  // the connection closes mid-reply
      default:
        return sse_response({sse_chunk({{"content", "whole"}}), sse_chunk(nlohmann::json::object(), "stop"), kSseDone});
    }
  });
  OpenAiChatClient client(llm_for(server), ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "whole");
  EXPECT_EQ(client.attempts(), 3);
  EXPECT_GT(client.usage().estimated_tokens, 0);
}

TEST(ChatStream, AServerThatRefusesStreamOptionsStreamsWithoutThem) {
  LoopbackHttpServer server([](const LoopbackRequest& r) {
    auto body = nlohmann::json::parse(r.body);
    if (body.contains("stream_options"))
      return json_response(
          400,
          R"({"error":{"message":"Unrecognized request argument supplied: stream_options","type":"invalid_request_error","param":null,"code":null}})");
    return sse_response({sse_chunk({{"content", "fine"}}), sse_chunk(nlohmann::json::object(), "stop"), kSseDone});
  });
  OpenAiChatClient client(llm_for(server), ledger(), fast_retries());
  EXPECT_EQ(client.complete(hello()).content, "fine");
  EXPECT_EQ(client.complete(hello()).content, "fine");
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(seen[2].body)["stream"], true);
  EXPECT_FALSE(nlohmann::json::parse(seen[2].body).contains("stream_options"));
}
