#include <gtest/gtest.h>

#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::llm::gemini_dialect_test {
namespace {

const Dialect& d = gemini_dialect();
constexpr const char* kBase = "https://generativelanguage.googleapis.com/v1beta";

// Gemini takes the seed in generationConfig.
TEST(GeminiDialect, SendsTheSeedInGenerationConfigAndReadsItBack) {
  ChatRequest r = testing::sample_request(false);
  r.model = "gemini-2.0-flash";
  r.seed = 10;
  auto spec = d.chat_request(r, {kBase, "", {}});
  json b = json::parse(spec.body);
  EXPECT_EQ(b["generationConfig"], json::parse(R"({"temperature":0.25,"maxOutputTokens":512,"seed":10})"));
  auto back = d.parse_chat_request("/v1beta/models/gemini-2.0-flash:generateContent", spec.body);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->seed.has_value());
  EXPECT_EQ(*back->seed, 10);
}

TEST(GeminiDialect, BuildsChatRequest) {
  auto req = testing::sample_request(false);
  req.model = "gemini-2.0-flash";
  auto spec = d.chat_request(req, {kBase, "AIza", {}});
  EXPECT_EQ(spec.url, std::string(kBase) + "/models/gemini-2.0-flash:generateContent");
  bool key = false;
  for (const auto& [k, v] : spec.headers) key = key || (k == "x-goog-api-key" && v == "AIza");
  EXPECT_TRUE(key);
  json b = json::parse(spec.body);
  EXPECT_EQ(b["systemInstruction"], json::parse(R"({"parts":[{"text":"You are the CEO."}]})"));
  EXPECT_EQ(b["contents"][0]["role"], "user");
  EXPECT_EQ(b["contents"][1], json::parse(R"({"role":"model","parts":[{"functionCall":{"name":"AgentCreator",
            "args":{"agent_name":"Poet","base_model":"mistral"}}}]})"));
  EXPECT_EQ(b["contents"][2], json::parse(R"({"role":"user","parts":[{"functionResponse":{"name":"AgentCreator",
            "response":{"content":"Agent Poet created; 3 remaining"}}}]})"));
  EXPECT_EQ(b["tools"][0]["functionDeclarations"][0]["name"], "AgentCreator");
  EXPECT_EQ(b["generationConfig"], json::parse(R"({"temperature":0.25,"maxOutputTokens":512})"));
  req.stream = true;
  EXPECT_EQ(d.chat_request(req, {kBase, "", {}}).url,
            std::string(kBase) + "/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
}

TEST(GeminiDialect, ToolResultFindsItsNameThroughTheCallId) {
  ChatRequest req;
  req.model = "g";
  req.messages.push_back({Role::user, "q", {}, "", ""});
  req.messages.push_back({Role::assistant, "", {{"id9", "AskAgent", "{}"}}, "", ""});
  req.messages.push_back({Role::tool, "answer", {}, "id9", ""});
  json b = json::parse(d.chat_request(req, {kBase, "", {}}).body);
  EXPECT_EQ(b["contents"][2]["parts"][0]["functionResponse"]["name"], "AskAgent");
}

TEST(GeminiDialect, ParsesResponseWithFunctionCallAndUsage) {
  auto r = d.parse_chat_response(R"({"candidates":[{"content":{"parts":[{"text":"Sure. "},
      {"functionCall":{"name":"AgentCreator","args":{"agent_name":"Poet"}}}],"role":"model"},
      "finishReason":"STOP","index":0}],
    "usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":12,"totalTokenCount":52},
    "modelVersion":"gemini-2.0-flash"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.content, "Sure. ");
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name":"Poet"})");
  EXPECT_FALSE(r->message.tool_calls[0].id.empty());
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->usage.input_tokens, 40);
  EXPECT_EQ(r->usage.output_tokens, 12);
  EXPECT_EQ(r->model, "gemini-2.0-flash");
}

TEST(GeminiDialect, BlockedPromptIsAClearError) {
  auto r = d.parse_chat_response(R"({"promptFeedback":{"blockReason":"SAFETY"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gemini: response has no candidates[0]"), std::string::npos);
  EXPECT_NE(r.error().message.find("SAFETY"), std::string::npos);
}

constexpr const char* kStream =
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Once\"}],\"role\": \"model\"},\"index\": "
    "0}],\"modelVersion\": \"gemini-2.0-flash\"}\r\n\r\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" upon\"}],\"role\": \"model\"},\"index\": "
    "0}],\"modelVersion\": \"gemini-2.0-flash\"}\r\n\r\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" a time\"}],\"role\": "
    "\"model\"},\"finishReason\": \"MAX_TOKENS\",\"index\": 0}],"
    "\"usageMetadata\": {\"promptTokenCount\": 5,\"candidatesTokenCount\": 3,\"totalTokenCount\": 8},\"modelVersion\": "
    "\"gemini-2.0-flash\"}\r\n\r\n";

TEST(GeminiDialect, DecodesStreamSplitAnywhere) {
  std::string body = kStream;
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    auto dec = d.stream_decoder();
    dec->feed(body.substr(0, cut));
    dec->feed(body.substr(cut));
    auto r = dec->finish();
    ASSERT_TRUE(r.ok()) << cut << ": " << r.error().message;
    ASSERT_EQ(r->message.content, "Once upon a time");
    ASSERT_EQ(r->finish_reason, "length");
    ASSERT_EQ(r->usage.input_tokens, 5);
  }
  std::string cut = body.substr(0, body.rfind("data:"));
  auto dec = d.stream_decoder();
  dec->feed(cut);
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gemini: stream ended before"), std::string::npos);
}

TEST(GeminiDialect, DescribesErrorsAndEmbeds) {
  EXPECT_EQ(d.describe_error(
                429, R"({"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}})"),
            "gemini: HTTP 429: Resource has been exhausted (RESOURCE_EXHAUSTED)");
  auto spec = d.embed_request({"text-embedding-004", {"a", "b"}}, {kBase, "", {}});
  EXPECT_EQ(spec.url, std::string(kBase) + "/models/text-embedding-004:batchEmbedContents");
  EXPECT_EQ(json::parse(spec.body)["requests"][1]["model"], "models/text-embedding-004");
  auto one = d.parse_embed_response(R"({"embedding":{"values":[0.5,0.5]}})");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->vectors.size(), 1u);
  auto single = d.parse_embed_request("/v1beta/models/text-embedding-004:embedContent",
                                      R"({"content":{"parts":[{"text":"hello"}]}})");
  ASSERT_TRUE(single.ok()) << single.error().message;
  EXPECT_EQ(single->inputs, std::vector<std::string>{"hello"});
}

}  // namespace
}  // namespace kaisha::llm::gemini_dialect_test

namespace kaisha::llm::gemini_dialect_test {
namespace {

// Found by the dialect_request fuzzer: a path naming the model in its
// resource-name form parsed to "models/x", which the request built again
// names "x".
TEST(GeminiDialect, AModelInItsResourceNameFormIsTheSameModel) {
  auto r = gemini_dialect().parse_chat_request("/v1beta/models/models/gemini-2.0-flash:generateContent",
                                               R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model, "gemini-2.0-flash");
  EXPECT_FALSE(gemini_dialect().parse_chat_request("/v1beta/models/models/:generateContent", "{}").ok());
}

}  // namespace
}  // namespace kaisha::llm::gemini_dialect_test
