#include "runtime/llm/model_ref.hpp"

#include <gtest/gtest.h>

namespace kaisha::llm {
namespace {

TEST(ModelRef, SplitsAtFirstColon) {
  auto r = parse_model_ref("ollama:llama3.2:3b");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->provider, "ollama");
  EXPECT_EQ(r->model, "llama3.2:3b");
}

TEST(ModelRef, ParsesEachProvider) {
  for (const char* text :
       {"openai:gpt-4o-mini", "gemini:gemini-2.0-flash", "anthropic:claude-3-5-haiku-latest", "ollama:llama3.2"}) {
    auto r = parse_model_ref(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(to_string(*r), text);
  }
}

TEST(ModelRef, TrimsWhitespace) {
  auto r = parse_model_ref("  openai : gpt-4o \n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (ModelRef{"openai", "gpt-4o"}));
}

TEST(ModelRef, RejectsBadRefsNamingTheText) {
  struct Case {
    const char* text;
    const char* why;
  };
  for (auto c : {Case{"", "empty"}, Case{"llama3.2", "no ':'"}, Case{":llama3.2", "provider part"},
                 Case{"ollama:", "model part"}, Case{"ollama:  ", "model part"}}) {
    auto r = parse_model_ref(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().code, "config");
    EXPECT_NE(r.error().message.find(std::string("\"") + c.text + "\""), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace kaisha::llm
