#include <gtest/gtest.h>

#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::llm::ollama_dialect_test {
namespace {

const Dialect& d = ollama_dialect();

TEST(OllamaDialect, BuildsChatRequest) {
  auto spec = d.chat_request(testing::sample_request(false), {"http://127.0.0.1:11434", "", {}});
  EXPECT_EQ(spec.url, "http://127.0.0.1:11434/api/chat");
  for (const auto& h : spec.headers) EXPECT_NE(h.first, "Authorization");
  json b = json::parse(spec.body);
  EXPECT_EQ(b["stream"], false);  // always explicit: Ollama streams by default
  EXPECT_EQ(b["options"], json::parse(R"({"temperature":0.25,"num_predict":512})"));
  // Arguments travel as a JSON object.
  EXPECT_EQ(b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            json::parse(R"({"agent_name":"Poet","base_model":"mistral"})"));
  EXPECT_EQ(b["messages"][3]["role"], "tool");
  EXPECT_EQ(b["messages"][3]["tool_name"], "AgentCreator");
  EXPECT_EQ(b["tools"][0]["function"]["name"], "AgentCreator");
}

// Ollama takes the seed among its options.
TEST(OllamaDialect, SendsTheSeedAsAnOptionAndReadsItBack) {
  ChatRequest r = testing::sample_request(false);
  r.seed = 10;
  auto spec = d.chat_request(r, {"http://127.0.0.1:11434", "", {}});
  json b = json::parse(spec.body);
  EXPECT_EQ(b["options"], json::parse(R"({"temperature":0.25,"num_predict":512,"seed":10})"));
  EXPECT_FALSE(b.contains("seed"));
  auto back = d.parse_chat_request("/api/chat", spec.body);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->seed.has_value());
  EXPECT_EQ(*back->seed, 10);
}

TEST(OllamaDialect, ParsesResponseWithToolCallsAndUsage) {
  auto r = d.parse_chat_response(R"({"model":"llama3.2","created_at":"2024-01-01T00:00:00Z",
    "message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"AskAgent","arguments":{"agent_name":"Poet","n":2}}}]},
    "done_reason":"stop","done":true,"total_duration":1,"prompt_eval_count":26,"eval_count":9})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name":"Poet","n":2})");
  EXPECT_FALSE(r->message.tool_calls[0].id.empty());  // synthesized
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->usage.input_tokens, 26);
  EXPECT_EQ(r->usage.output_tokens, 9);
}

TEST(OllamaDialect, StringArgumentsAreKeptVerbatim) {
  auto r = d.parse_chat_response(R"({"model":"m","message":{"role":"assistant","content":"",
    "tool_calls":[{"function":{"name":"X","arguments":"{\"agent_name\": \"X\","}}]},"done":true})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"agent_name": "X",)");
  EXPECT_TRUE(r->usage.estimated);
}

TEST(OllamaDialect, MissingMessage) {
  auto r = d.parse_chat_response(R"({"model":"m","done":true})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "ollama: response has no message");
}

constexpr const char* kStream =
    "{\"model\":\"llama3.2\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"done\":"
    "false}\n"
    "{\"model\":\"llama3.2\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"lo "
    "✓\"},\"done\":false}\r\n"
    "{\"model\":\"llama3.2\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done_"
    "reason\":\"length\",\"done\":true,\"prompt_eval_count\":3,\"eval_count\":4}\n";

TEST(OllamaDialect, DecodesNdjsonSplitAnywhere) {
  std::string body = kStream;
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    auto dec = d.stream_decoder();
    dec->feed(body.substr(0, cut));
    dec->feed(body.substr(cut));
    auto r = dec->finish();
    ASSERT_TRUE(r.ok()) << cut << ": " << r.error().message;
    ASSERT_EQ(r->message.content, "Hello ✓");
    ASSERT_EQ(r->finish_reason, "length");
    ASSERT_EQ(r->usage.output_tokens, 4);
  }
  // The last line may lack its newline.
  auto dec = d.stream_decoder();
  dec->feed(body.substr(0, body.size() - 1));
  EXPECT_TRUE(dec->finish().ok());
}

TEST(OllamaDialect, StreamWithoutDoneIsCutOff) {
  std::string body = kStream;
  body.resize(body.rfind("{\"model\""));
  auto dec = d.stream_decoder();
  dec->feed(body);
  auto r = dec->finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ollama: stream ended before"), std::string::npos) << r.error().message;
}

TEST(OllamaDialect, ParsesRequestStreamingByDefault) {
  auto r = d.parse_chat_request("/api/chat", R"({"model":"llama3.2","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->stream);
}

TEST(OllamaDialect, DescribesErrorsAndEmbeds) {
  EXPECT_EQ(d.describe_error(404, R"({"error":"model \"x\" not found, try pulling it first"})"),
            "ollama: HTTP 404: model \"x\" not found, try pulling it first");
  auto spec = d.embed_request({"nomic-embed-text", {"a"}}, {"http://h:11434/", "", {}});
  EXPECT_EQ(spec.url, "http://h:11434/api/embed");
  auto r = d.parse_embed_response(R"({"model":"nomic-embed-text","embeddings":[[0.1,0.2]],"prompt_eval_count":1})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->vectors.at(0).size(), 2u);
}

}  // namespace
}  // namespace kaisha::llm::ollama_dialect_test
