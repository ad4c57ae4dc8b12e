#include <gtest/gtest.h>

#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::llm {
namespace {

const Dialect& d = anthropic_dialect();

TEST(AnthropicDialect, BuildsChatRequest) {
  auto spec = d.chat_request(testing::sample_request(false), {"https://api.anthropic.com", "sk-ant", {}});
  EXPECT_EQ(spec.url, "https://api.anthropic.com/v1/messages");
  std::map<std::string, std::string> h(spec.headers.begin(), spec.headers.end());
  EXPECT_EQ(h["x-api-key"], "sk-ant");
  EXPECT_EQ(h["anthropic-version"], "2023-06-01");
  json b = json::parse(spec.body);
  EXPECT_EQ(b["system"], "You are the CEO.");
  EXPECT_EQ(b["max_tokens"], 512);
  EXPECT_EQ(b["messages"][0], json::parse(R"({"role":"user","content":"Write a poem about tea \"quoted\" ünïcode"})"));
  EXPECT_EQ(b["messages"][1], json::parse(R"({"role":"assistant","content":[{"type":"tool_use","id":"call_0",
            "name":"AgentCreator","input":{"agent_name":"Poet","base_model":"mistral"}}]})"));
  EXPECT_EQ(b["messages"][2], json::parse(R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0",
            "content":"Agent Poet created; 3 remaining"}]})"));
  EXPECT_EQ(b["tools"][0]["input_schema"]["type"], "object");
  ChatRequest no_max = testing::sample_request(false);
  no_max.max_tokens.reset();
  EXPECT_EQ(json::parse(d.chat_request(no_max, {"https://api.anthropic.com", "", {}}).body)["max_tokens"], 1024);
}

TEST(AnthropicDialect, ParsesResponseWithToolUseAndUsage) {
  auto r = d.parse_chat_response(R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022",
    "content":[{"type":"text","text":"I'll ask."},{"type":"tool_use","id":"toolu_01","name":"AskAgent","input":{"agent_name":"Poet"}}],
    "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":300,"output_tokens":45}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.content, "I'll ask.");
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].id, "toolu_01");
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name":"Poet"})");
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->usage.input_tokens, 300);
  EXPECT_EQ(r->usage.output_tokens, 45);
}

TEST(AnthropicDialect, MissingContent) {
  auto r = d.parse_chat_response(R"({"type":"message","role":"assistant"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "anthropic: response has no content array");
}

constexpr const char* kStream =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-3-5-haiku-latest\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n"
    "event: ping\ndata: {\"type\":\"ping\"}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"AskAgent\",\"input\":{}}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"agent\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"_name\\\": \\\"Poet\\\"}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

TEST(AnthropicDialect, DecodesStreamSplitAnywhere) {
  std::string body = kStream;
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    auto dec = d.stream_decoder();
    dec->feed(body.substr(0, cut));
    dec->feed(body.substr(cut));
    auto r = dec->finish();
    ASSERT_TRUE(r.ok()) << cut << ": " << r.error().message;
    ASSERT_EQ(r->message.content, "Okay");
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    ASSERT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name": "Poet"})");
    ASSERT_EQ(r->usage.input_tokens, 25);
    ASSERT_EQ(r->usage.output_tokens, 15);
    ASSERT_EQ(r->finish_reason, "tool_calls");
  }
  std::string cut = body.substr(0, body.rfind("event: message_stop"));
  auto dec = d.stream_decoder();
  dec->feed(cut);
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("stream ended before message_stop"), std::string::npos);
}

TEST(AnthropicDialect, ErrorEventInStream) {
  auto dec = d.stream_decoder();
  dec->feed("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("Overloaded"), std::string::npos);
}

TEST(AnthropicDialect, DescribesErrorsAndHasNoEmbeddings) {
  EXPECT_EQ(d.describe_error(429, R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}})"),
            "anthropic: HTTP 429: Number of requests has exceeded your rate limit (rate_limit_error)");
  EXPECT_FALSE(d.supports_embeddings());
  auto r = d.parse_embed_response("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no embeddings"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::llm
