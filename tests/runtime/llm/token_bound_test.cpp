// The reservation's input bound must hold for every language: no tokenizer
// makes more than one token per byte, so the bound counts bytes, not the
// ~4-characters-per-token estimate that under-reserved Japanese prompts.
#include "runtime/llm/token_bound.hpp"

#include <gtest/gtest.h>

#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::llm {
namespace {

// The most tokens any tokenizer can make of `r`: one per byte of every text
// it sends, plus the framing the provider adds.
int64_t worst_tokenizer(const ChatRequest& r) {
  int64_t n = TokenFraming::per_request;
  for (const auto& m : r.messages) {
    n += TokenFraming::per_message + int64_t(m.content.size() + m.name.size() + m.tool_call_id.size());
    for (const auto& c : m.tool_calls)
      n += TokenFraming::per_tool + int64_t(c.id.size() + c.name.size() + c.arguments.size());
  }
  if (!r.tools.empty()) n += TokenFraming::tools_preamble;
  for (const auto& t : r.tools)
    n += TokenFraming::per_tool + int64_t(t.name.size() + t.description.size() + t.parameters.dump().size());
  return n;
}

ChatRequest ask(const std::string& system, const std::string& user) {
  ChatRequest r;
  r.messages.push_back({Role::system, system, {}, "", ""});
  r.messages.push_back({Role::user, user, {}, "", ""});
  return r;
}

const std::string kJapanese =
    "東京の主要な河川を三つ挙げ、それぞれの長さと歴史的な役割について簡潔に説明してください。";
const std::string kEmoji =
    "🌊🏞️🐟🚣‍♀️🌉 rivers 🌧️➡️🌊 — explain the water cycle with emoji only 🙂";

TEST(TokenBound, CoversOneTokenPerByteForCjkAndEmoji) {
  for (const std::string& text : {kJapanese, kEmoji, std::string("plain English words")}) {
    SCOPED_TRACE(text);
    ChatRequest r = ask("あなたは簡潔な専門家です。", text);
    EXPECT_GE(input_token_bound(r), worst_tokenizer(r));
    EXPECT_GE(input_token_bound(r), int64_t(text.size()));
    EXPECT_EQ(ask_input_token_bound("あなたは簡潔な専門家です。", text), input_token_bound(r));
  }
}

// The defect: ~4 characters (bytes) per token reserved about 0.75 tokens per
// Japanese character, while tokenizers make one or more per character.
TEST(TokenBound, TheOldEstimateUnderReservedJapanese) {
  const ChatRequest r = ask("", kJapanese);
  const int64_t chars = 44;  // code points of kJapanese
  EXPECT_LT(estimate_input_tokens(r), chars);
  EXPECT_GE(input_token_bound(r), chars);
}

TEST(TokenBound, CountsToolSchemasToolCallsAndFraming) {
  ChatRequest r = ask("sys", "user");
  const int64_t bare = input_token_bound(r);
  EXPECT_EQ(bare, TokenFraming::per_request + 2 * TokenFraming::per_message + 3 + 4);
  ToolSpec t;
  t.name = "lookup";
  t.description = "調べる";
  t.parameters = json{{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}};
  r.tools.push_back(t);
  EXPECT_EQ(input_token_bound(r), bare + TokenFraming::tools_preamble + TokenFraming::per_tool +
                                      int64_t(t.name.size() + t.description.size() + t.parameters.dump().size()));
  ChatMessage call{Role::assistant, "", {{"c1", "lookup", R"({"query":"川"})"}}, "", ""};
  ChatMessage result{Role::tool, "結果", {}, "c1", "lookup"};
  r.messages.push_back(call);
  r.messages.push_back(result);
  EXPECT_EQ(input_token_bound(r), worst_tokenizer(r));
}

TEST(TokenBound, EmptyRequestStillHoldsTheFraming) {
  EXPECT_EQ(input_token_bound(ChatRequest{}), TokenFraming::per_request);
}

// A schema holding invalid UTF-8 (from a tool server) must not throw.
TEST(TokenBound, InvalidUtf8InASchemaDoesNotThrow) {
  ChatRequest r;
  ToolSpec t;
  t.name = "bad";
  t.parameters = json{{"description", std::string("\xff\xfe")}};
  r.tools.push_back(t);
  EXPECT_NO_THROW((void)input_token_bound(r));
  EXPECT_GT(input_token_bound(r), TokenFraming::tools_preamble);
}

}  // namespace
}  // namespace kaisha::llm
