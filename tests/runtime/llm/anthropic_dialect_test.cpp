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

// The Messages API has no seed: a seeded request goes out without one.
TEST(AnthropicDialect, SendsNoSeed) {
  ChatRequest r = testing::sample_request(false);
  r.seed = 10;
  auto spec = d.chat_request(r, {"https://api.anthropic.com", "", {}});
  json b = json::parse(spec.body);
  EXPECT_FALSE(b.contains("seed")) << spec.body;
  EXPECT_EQ(b["temperature"], 0.25);
  auto back = d.parse_chat_request("/v1/messages", spec.body);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->seed.has_value());
}

TEST(AnthropicDialect, ParsesResponseWithToolUseAndUsage) {
  auto r =
      d.parse_chat_response(R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022",
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
    "event: message_start\ndata: "
    "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
    "\"claude-3-5-haiku-latest\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":"
    "1}}}\n\n"
    "event: ping\ndata: {\"type\":\"ping\"}\n\n"
    "event: content_block_start\ndata: "
    "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\ndata: "
    "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: "
    "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\","
    "\"name\":\"AskAgent\",\"input\":{}}}\n\n"
    "event: content_block_delta\ndata: "
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{"
    "\\\"agent\"}}\n\n"
    "event: content_block_delta\ndata: "
    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"_"
    "name\\\": \\\"Poet\\\"}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\ndata: "
    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_"
    "tokens\":15}}\n\n"
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

namespace {

std::string event(const std::string& name, const std::string& data) {
  return "event: " + name + "\ndata: " + data + "\n\n";
}

const std::string kStart =
    event("message_start",
          R"({"type":"message_start","message":{"model":"m","usage":{"input_tokens":5,"output_tokens":1}}})");
const std::string kTextBlock =
    event("content_block_start",
          R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})") +
    event("content_block_delta",
          R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Already shown"}})");
const std::string kEnd = event("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"end_turn"}})") +
                         event("message_stop", R"({"type":"message_stop"})");

// Decodes `body`; `shown` gets what on_text passed on.
Result<ChatResponse> decode(const std::string& body, std::string& shown) {
  auto dec = d.stream_decoder();
  dec->on_text = [&](std::string_view t) { shown.append(t); };
  dec->feed(body);
  return dec->finish();
}

}  // namespace

// A block start that does not name the next block (no index, an index again,
// one skipped) used to overwrite the text block at index 0 with a tool call:
// text already passed to on_text vanished from the answer. Found by the
// dialect_stream fuzz target (tests/fuzz/corpus/dialect_stream/regress_*).
TEST(AnthropicDialect, BlockStartOutOfOrderIsADecodeErrorNotLostText) {
  const std::string tool = R"("content_block":{"type":"tool_use","id":"t1","name":"AskAgent","input":{}}})";
  struct Case {
    std::string start;
    std::string expected;
  } cases[] = {
      {R"({"type":"content_block_start",)" + tool, "content_block_start has no integer index"},
      {R"({"type":"content_block_start","index":"1",)" + tool, "content_block_start has no integer index"},
      {R"({"type":"content_block_start","index":0,)" + tool,
       "content_block_start has index 0 but 1 blocks have started"},
      {R"({"type":"content_block_start","index":2,)" + tool,
       "content_block_start has index 2 but 1 blocks have started"},
      {R"({"type":"content_block_start","index":-1,)" + tool,
       "content_block_start has index -1 but 1 blocks have started"},
  };
  for (const auto& c : cases) {
    std::string shown;
    auto r = decode(kStart + kTextBlock + event("content_block_start", c.start) + kEnd, shown);
    EXPECT_EQ(shown, "Already shown");
    ASSERT_FALSE(r.ok()) << c.start << " decoded to \"" << r->message.content << "\"";
    EXPECT_EQ(r.error().code, "llm");
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
  }
}

TEST(AnthropicDialect, DeltaOrStopForAnotherBlockIsADecodeError) {
  struct Case {
    std::string events;
    std::string expected;
  } cases[] = {
      {event("content_block_delta", R"({"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}})"),
       "content_block_delta has no integer index"},
      {event("content_block_delta",
             R"({"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}})"),
       "content_block_delta for block 3, but the open block is 0"},
      {event("content_block_stop", R"({"type":"content_block_stop","index":0})") +
           event("content_block_delta",
                 R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})"),
       "content_block_delta for block 0, but no content block is open"},
      {event("content_block_delta",
             R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}})"),
       "content_block_delta of type input_json_delta for block 0, which is a text block"},
      {event("content_block_stop", R"({"type":"content_block_stop","index":1})"),
       "content_block_stop for block 1, but the open block is 0"},
  };
  for (const auto& c : cases) {
    std::string shown;
    auto r = decode(kStart + kTextBlock + c.events + kEnd, shown);
    ASSERT_FALSE(r.ok()) << c.events;
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
  }
  // A delta before any block started.
  std::string shown;
  auto r = decode(kStart +
                      event("content_block_delta",
                            R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})") +
                      kEnd,
                  shown);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no content block is open"), std::string::npos) << r.error().message;
  EXPECT_EQ(shown, "");
  // Text into a tool block would be shown and then dropped.
  shown.clear();
  r = decode(
      kStart +
          event(
              "content_block_start",
              R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}})") +
          event("content_block_delta",
                R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})") +
          kEnd,
      shown);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("text_delta for block 0, which is a tool_use block"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(shown, "");
}

// Blocks kaisha does not use (thinking, server tools) keep their place and are
// skipped, deltas and all; the text around them is kept in order.
TEST(AnthropicDialect, OtherBlockKindsAreSkippedInPlace) {
  std::string body =
      kStart +
      event("content_block_start",
            R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})") +
      event("content_block_delta",
            R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}})") +
      event("content_block_stop", R"({"type":"content_block_stop","index":0})") +
      event(
          "content_block_start",
          R"({"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}})") +
      event("content_block_delta",
            R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}})") +
      event("content_block_stop", R"({"type":"content_block_stop","index":1})") +
      event("content_block_start",
            R"({"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Hi"}})") +
      event("content_block_delta",
            R"({"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":" there"}})") +
      event("content_block_stop", R"({"type":"content_block_stop","index":2})") + kEnd;
  std::string shown;
  auto r = decode(body, shown);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.content, "Hi there");
  EXPECT_EQ(shown, "Hi there");
  EXPECT_TRUE(r->message.tool_calls.empty());
}

TEST(AnthropicDialect, ErrorEventInStream) {
  auto dec = d.stream_decoder();
  dec->feed(
      "event: error\ndata: "
      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("Overloaded"), std::string::npos);
}

TEST(AnthropicDialect, DescribesErrorsAndHasNoEmbeddings) {
  EXPECT_EQ(
      d.describe_error(
          429,
          R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}})"),
      "anthropic: HTTP 429: Number of requests has exceeded your rate limit (rate_limit_error)");
  EXPECT_FALSE(d.supports_embeddings());
  auto r = d.parse_embed_response("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no embeddings"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::llm
