// Client <-> server round trips through every dialect: what one side writes,
// the other side reads back unchanged.
#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::llm {
namespace {

using testing::path_of;
using testing::sample_request;
using testing::sample_response;
using testing::to_json;

class RoundTrip : public ::testing::TestWithParam<std::string> {
 protected:
  const Dialect& d() const { return *find_dialect(GetParam()); }
};

TEST_P(RoundTrip, ChatRequest) {
  for (bool stream : {false, true}) {
    ChatRequest in = sample_request(stream);
    HttpRequestSpec spec = d().chat_request(in, Endpoint{"http://127.0.0.1:1234/base/", "k", {}});
    auto out = d().parse_chat_request(path_of(spec.url), spec.body);
    ASSERT_TRUE(out.ok()) << out.error().message;
    EXPECT_EQ(to_json(*out), to_json(in)) << spec.body;
  }
}

TEST_P(RoundTrip, ChatResponse) {
  ChatResponse in = sample_response();
  auto out = d().parse_chat_response(d().render_chat_response(in));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(to_json(*out), to_json(in));
}

TEST_P(RoundTrip, TextOnlyResponse) {
  ChatResponse in;
  in.model = "m";
  in.message.role = Role::assistant;
  in.message.content = "Just text.";
  in.usage = {5, 2, false};
  in.finish_reason = "stop";
  auto out = d().parse_chat_response(d().render_chat_response(in));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(to_json(*out), to_json(in));
  auto dec = d().stream_decoder();
  for (const auto& c : d().render_chat_stream(in)) dec->feed(c);
  auto s = dec->finish();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(to_json(*s), to_json(in));
}

// A provider's ill-formed UTF-8 is repaired where the dialect decodes it:
// the answer arrives with U+FFFD in place of the bad bytes, in one piece and
// streamed byte by byte, and an error body's excerpt is valid text too.
TEST_P(RoundTrip, IllFormedUtf8BecomesReplacementCharacters) {
  const std::string ja = "\xE6\x97\xA5\xE6\x9C\xAC";   // 日本
  const std::string bad = "\xE6\x97\xFF\xED\xA0\x80";  // cut 日, a stray byte, a surrogate
  const std::string fffd = "\xEF\xBF\xBD";
  ChatResponse in;
  in.model = "m";
  in.message.role = Role::assistant;
  in.message.content = ja + "BADBYTES" + ja;
  in.usage = {5, 2, false};
  in.finish_reason = "stop";
  auto corrupt = [&](std::string s) {
    for (size_t p; (p = s.find("BADBYTES")) != std::string::npos;) s.replace(p, 8, bad);
    return s;
  };
  const std::string want = ja + fffd + fffd + fffd + fffd + fffd + ja;
  auto out = d().parse_chat_response(corrupt(d().render_chat_response(in)));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->message.content, want);
  std::string body;
  for (const auto& c : d().render_chat_stream(in)) body += c;
  body = corrupt(body);
  auto dec = d().stream_decoder();
  for (char c : body) dec->feed(std::string_view(&c, 1));
  auto s = dec->finish();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->message.content, want);
  const std::string described = d().describe_error(500, "oops " + bad + std::string(400, 'x'));
  EXPECT_TRUE(utf8::valid(described)) << described;
}

TEST_P(RoundTrip, StreamInChunksAsRendered) {
  ChatResponse in = sample_response();
  auto dec = d().stream_decoder();
  std::string seen;
  dec->on_text = [&](std::string_view t) { seen += t; };
  for (const auto& c : d().render_chat_stream(in)) dec->feed(c);
  auto out = dec->finish();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(to_json(*out), to_json(in));
  EXPECT_EQ(seen, in.message.content);
}

TEST_P(RoundTrip, StreamSplitAtEveryByteBoundary) {
  ChatResponse in = sample_response();
  std::string body;
  for (const auto& c : d().render_chat_stream(in)) body += c;
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    auto dec = d().stream_decoder();
    dec->feed(std::string_view(body).substr(0, cut));
    dec->feed(std::string_view(body).substr(cut));
    auto out = dec->finish();
    ASSERT_TRUE(out.ok()) << "split at " << cut << ": " << out.error().message;
    ASSERT_EQ(to_json(*out), to_json(in)) << "split at " << cut;
  }
  // And one byte at a time.
  auto dec = d().stream_decoder();
  for (char ch : body) dec->feed(std::string_view(&ch, 1));
  auto out = dec->finish();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(to_json(*out), to_json(in));
}

TEST_P(RoundTrip, CutOffStreamIsAnError) {
  auto chunks = d().render_chat_stream(sample_response());
  ASSERT_GE(chunks.size(), 2u);
  chunks.pop_back();  // the terminal event never arrives
  auto dec = d().stream_decoder();
  for (const auto& c : chunks) dec->feed(c);
  auto out = dec->finish();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, "llm");
  EXPECT_NE(out.error().message.find(GetParam() + ": stream ended before"), std::string::npos) << out.error().message;
}

TEST_P(RoundTrip, EmptyStreamIsAnError) {
  auto dec = d().stream_decoder();
  EXPECT_FALSE(dec->finish().ok());
}

TEST_P(RoundTrip, MalformedToolArgumentsSurviveVerbatim) {
  ChatResponse in = sample_response();
  in.message.tool_calls[0].arguments = R"({"agent_name": "X",)";
  auto out = d().parse_chat_response(d().render_chat_response(in));
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(out->message.tool_calls.size(), 2u);
  EXPECT_EQ(out->message.tool_calls[0].arguments, R"({"agent_name": "X",)");
  auto dec = d().stream_decoder();
  for (const auto& c : d().render_chat_stream(in)) dec->feed(c);
  auto s = dec->finish();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->message.tool_calls[0].arguments, R"({"agent_name": "X",)");
}

TEST_P(RoundTrip, MissingUsageIsEstimated) {
  ChatResponse in = sample_response();
  in.usage = {0, 0, true};
  auto out = d().parse_chat_response(d().render_chat_response(in));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->usage.estimated);
  EXPECT_GT(out->usage.output_tokens, 0);
}

TEST_P(RoundTrip, ErrorBodyIsDescribed) {
  std::string body = d().render_error(429, "slow down please");
  std::string text = d().describe_error(429, body);
  EXPECT_NE(text.find(GetParam()), std::string::npos) << text;
  EXPECT_NE(text.find("429"), std::string::npos) << text;
  EXPECT_NE(text.find("slow down please"), std::string::npos) << text;
  // A non-JSON body is quoted instead.
  EXPECT_NE(d().describe_error(502, "<html>Bad Gateway</html>").find("Bad Gateway"), std::string::npos);
}

TEST_P(RoundTrip, GarbageNeverThrows) {
  for (const char* body : {"", "null", "[]", "{", "{\"choices\":5}", "{\"message\":[1]}", "{\"candidates\":[{}]}",
                           "{\"content\":{}}", "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":7}]}}]}",
                           "{\"content\":[{\"type\":\"tool_use\",\"input\":5}]}"}) {
    EXPECT_NO_THROW({
      auto r = d().parse_chat_response(body);
      (void)r;
      auto e = d().parse_embed_response(body);
      (void)e;
      auto q = d().parse_chat_request("/v1beta/models/x:generateContent", body);
      (void)q;
      auto dec = d().stream_decoder();
      dec->feed(std::string("data: ") + body + "\n\n" + body + "\n");
      (void)dec->finish();
    }) << body;
  }
  auto r = d().parse_chat_response("{\"unrelated\": true}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind(GetParam() + ": ", 0), 0u) << r.error().message;
}

TEST_P(RoundTrip, Embeddings) {
  if (!d().supports_embeddings()) {
    EXPECT_FALSE(d().parse_embed_response("{}").ok());
    EXPECT_TRUE(d().embed_request({"m", {"a"}}, {}).url.empty());
    return;
  }
  EmbedRequest req{"embed-model", {"first text", "second text"}};
  HttpRequestSpec spec = d().embed_request(req, Endpoint{"http://h:1/x", "", {}});
  auto parsed = d().parse_embed_request(path_of(spec.url), spec.body);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->model, "embed-model");
  EXPECT_EQ(parsed->inputs, req.inputs);
  EmbedResponse resp;
  resp.vectors = {{0.5f, -0.25f}, {1.0f, 0.0f}};
  resp.usage.input_tokens = 4;
  auto back = d().parse_embed_response(d().render_embed_response(resp));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->vectors, resp.vectors);
}

INSTANTIATE_TEST_SUITE_P(AllDialects, RoundTrip, ::testing::Values("openai", "ollama", "gemini", "anthropic"),
                         [](const auto& info) { return info.param; });

TEST(FindDialect, KnowsTheFourAndNothingElse) {
  for (const char* n : {"openai", "ollama", "gemini", "anthropic"}) {
    ASSERT_NE(find_dialect(n), nullptr) << n;
    EXPECT_EQ(find_dialect(n)->name(), n);
  }
  EXPECT_EQ(find_dialect("cohere"), nullptr);
}

}  // namespace
}  // namespace kaisha::llm
