#include <gtest/gtest.h>

#include <limits>

#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::llm::openai_dialect_test {
namespace {

const Dialect& d = openai_dialect();

std::string header(const HttpRequestSpec& s, const std::string& name) {
  for (const auto& [k, v] : s.headers)
    if (k == name) return v;
  return "<absent>";
}

// The seed is sent only when set, as `seed`, and the server side reads it back.
TEST(OpenAiDialect, SendsTheSeedWhenSetAndReadsItBack) {
  ChatRequest r = testing::sample_request(false);
  EXPECT_FALSE(json::parse(d.chat_request(r, {"http://h/v1", "", {}}).body).contains("seed"));
  r.seed = 10;
  auto spec = d.chat_request(r, {"http://h/v1", "", {}});
  EXPECT_EQ(json::parse(spec.body)["seed"], 10);
  auto back = d.parse_chat_request("/v1/chat/completions", spec.body);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->seed.has_value());
  EXPECT_EQ(*back->seed, 10);
  auto unseeded = d.parse_chat_request("/v1/chat/completions", R"({"model":"m","messages":[],"seed":"ten"})");
  ASSERT_TRUE(unseeded.ok()) << unseeded.error().message;
  EXPECT_FALSE(unseeded->seed.has_value());
}

TEST(OpenAiDialect, BuildsChatRequest) {
  auto spec = d.chat_request(testing::sample_request(true),
                             {"https://api.openai.com/v1/", "sk-1", {{"OpenAI-Organization", "org"}}});
  EXPECT_EQ(spec.method, "POST");
  EXPECT_EQ(spec.url, "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(header(spec, "Authorization"), "Bearer sk-1");
  EXPECT_EQ(header(spec, "OpenAI-Organization"), "org");
  json b = json::parse(spec.body);
  EXPECT_EQ(b["model"], "test-model");
  EXPECT_EQ(b["stream"], true);
  EXPECT_EQ(b["stream_options"], json::parse(R"({"include_usage":true})"));
  EXPECT_EQ(b["temperature"], 0.25);
  EXPECT_EQ(b["max_tokens"], 512);
  EXPECT_EQ(b["messages"][0], json::parse(R"({"role":"system","content":"You are the CEO."})"));
  EXPECT_EQ(b["messages"][2],
            json::parse(R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function",
            "function":{"name":"AgentCreator","arguments":"{\"agent_name\":\"Poet\",\"base_model\":\"mistral\"}"}}]})"));
  EXPECT_EQ(b["messages"][3],
            json::parse(R"({"role":"tool","tool_call_id":"call_0","content":"Agent Poet created; 3 remaining"})"));
  EXPECT_EQ(b["tools"][0]["type"], "function");
  EXPECT_EQ(b["tools"][0]["function"]["name"], "AgentCreator");
  EXPECT_EQ(b["tools"][0]["function"]["parameters"]["required"][0], "agent_name");
  auto plain = json::parse(d.chat_request(testing::sample_request(false), {"http://h/v1", "", {}}).body);
  EXPECT_FALSE(plain.contains("stream_options"));
}

TEST(OpenAiDialect, ParsesResponseWithToolCallsAndUsage) {
  auto r = d.parse_chat_response(R"({
    "id": "chatcmpl-abc", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
      "tool_calls": [{"id": "call_Xy", "type": "function",
                      "function": {"name": "AskAgent", "arguments": "{\"agent_name\": \"Poet\", \"question\": \"hi\"}"}}]}}],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model, "gpt-4o-mini-2024-07-18");
  EXPECT_EQ(r->message.content, "");
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].id, "call_Xy");
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name": "Poet", "question": "hi"})");
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->usage.input_tokens, 82);
  EXPECT_EQ(r->usage.output_tokens, 17);
  EXPECT_FALSE(r->usage.estimated);
}

TEST(OpenAiDialect, MalformedArgumentsArePreserved) {
  auto r = d.parse_chat_response(R"({"choices":[{"message":{"role":"assistant","tool_calls":[
    {"id":"c","function":{"name":"AgentCreator","arguments":"{\"agent_name\": \"X\","}}]}}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.tool_calls.at(0).arguments, R"({"agent_name": "X",)");
}

TEST(OpenAiDialect, MissingChoicesNamesWhatIsMissing) {
  auto r = d.parse_chat_response(R"({"id":"x","choices":[]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "openai: response has no choices[0].message");
}

// A stream as api.openai.com sends it: tool call arguments in fragments,
// usage in a last chunk with no choices.
constexpr const char* kStream =
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hiring "
    "\"},\"finish_reason\":null}]}\n\n"
    ": keep-alive comment\n\n"
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
    "\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"AgentCreator\",\"arguments\":\"\"}}]},\"finish_reason\":"
    "null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"{\\\"agent_na\"}}]},\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"me\\\":\\\"Poet\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_"
    "tokens\":15}}\n\n"
    "data: [DONE]\n\n";

TEST(OpenAiDialect, DecodesStreamSplitAnywhere) {
  std::string body = kStream;
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    auto dec = d.stream_decoder();
    std::string text;
    dec->on_text = [&](std::string_view t) { text += t; };
    dec->feed(body.substr(0, cut));
    dec->feed(body.substr(cut));
    auto r = dec->finish();
    ASSERT_TRUE(r.ok()) << cut << ": " << r.error().message;
    ASSERT_EQ(r->message.content, "Hiring ");
    ASSERT_EQ(text, "Hiring ");
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    ASSERT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name":"Poet"})");
    ASSERT_EQ(r->message.tool_calls[0].id, "call_1");
    ASSERT_EQ(r->usage.input_tokens, 10);
    ASSERT_EQ(r->finish_reason, "tool_calls");
  }
}

TEST(OpenAiDialect, StreamWithoutDoneIsCutOff) {
  std::string body = kStream;
  body.resize(body.find("data: [DONE]"));
  auto dec = d.stream_decoder();
  dec->feed(body);
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("stream ended before [DONE]"), std::string::npos);
}

TEST(OpenAiDialect, DescribesErrors) {
  EXPECT_EQ(
      d.describe_error(401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}})"),
      "openai: HTTP 401: Incorrect API key provided");
}

TEST(OpenAiDialect, Embeddings) {
  auto spec = d.embed_request({"text-embedding-3-small", {"a", "b"}}, {"https://api.openai.com/v1", "k", {}});
  EXPECT_EQ(spec.url, "https://api.openai.com/v1/embeddings");
  EXPECT_EQ(json::parse(spec.body)["input"], json::parse(R"(["a","b"])"));
  auto r = d.parse_embed_response(
      R"({"data":[{"index":1,"embedding":[0.5]},{"index":0,"embedding":[0.25]}],"usage":{"prompt_tokens":2}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->vectors, (std::vector<std::vector<float>>{{0.25f}, {0.5f}}));
  EXPECT_EQ(r->usage.input_tokens, 2);
}

}  // namespace
}  // namespace kaisha::llm::openai_dialect_test

namespace kaisha::llm::openai_dialect_test {
namespace {

// A number beyond int64_t where an integer belongs (a request's token limit,
// a response's usage) is clamped, not converted with undefined behaviour.
TEST(OpenAiDialect, NumbersBeyondAnIntegerAreClampedNotUndefined) {
  auto r = openai_dialect().parse_chat_request(
      "/v1/chat/completions", R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1e300})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->max_tokens.value_or(0), std::numeric_limits<int64_t>::max());
  auto low = openai_dialect().parse_chat_request(
      "/v1/chat/completions", R"({"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":-1e300})");
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_EQ(low->max_tokens.value_or(0), std::numeric_limits<int64_t>::min());
  auto resp = openai_dialect().parse_chat_response(
      R"({"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":3e30,"completion_tokens":2.5}})");
  ASSERT_TRUE(resp.ok()) << resp.error().message;
  EXPECT_EQ(resp->usage.input_tokens, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(resp->usage.output_tokens, 2);
}

}  // namespace
}  // namespace kaisha::llm::openai_dialect_test
