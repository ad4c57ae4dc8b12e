#include "runtime/hiva/replies/free_text.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace free_text_test {

TEST(FreeText, TrimsAndRepairs) {
  Parsed<std::string> p = parse_free_text("\r\n  Austin has 961,855 people. 🤠\r\n", "agent output");
  EXPECT_EQ(p.value, "Austin has 961,855 people. 🤠");
  EXPECT_EQ(p.problem, std::nullopt);
  Parsed<std::string> bad = parse_free_text("ok \xFF", "aggregation");
  EXPECT_EQ(bad.value, "ok \xEF\xBF\xBD");
  EXPECT_EQ(*bad.problem, "aggregation reply: invalid UTF-8 at byte 4 (0xFF), replaced by U+FFFD");
  Parsed<std::string> empty = parse_free_text("\n", "aggregation");
  EXPECT_TRUE(empty.defaulted);
  EXPECT_EQ(*empty.problem, "aggregation reply: the reply is empty");
}

// Fig. 6's example output, bare and dressed.
TEST(Instruction, StripsLabelsQuotesAndFences) {
  for (const char* reply : {"Retrieve Austin, Texas population.", "Output: Retrieve Austin, Texas population.",
                            "**Instruction:** \"Retrieve Austin, Texas population.\"",
                            "```\nRetrieve Austin, Texas population.\n```", "“Retrieve Austin, Texas population.”"}) {
    Parsed<std::string> p = parse_instruction(reply, "fallback");
    EXPECT_EQ(p.value, "Retrieve Austin, Texas population.") << reply;
    EXPECT_EQ(p.problem, std::nullopt) << reply;
  }
  EXPECT_EQ(parse_instruction("オースティンの人口を調べてください。", "x").value,
            "オースティンの人口を調べてください。");
}

TEST(Instruction, EmptyIsTheFallback) {
  Parsed<std::string> p = parse_instruction("Instruction: \"\"", "Population of Tesla's headquarters city?");
  EXPECT_EQ(p.value, "Population of Tesla's headquarters city?");
  EXPECT_TRUE(p.defaulted);
  EXPECT_NE(p.problem->find("the reply has no instruction"), std::string::npos);
}

}  // namespace free_text_test
}  // namespace kaisha::hiva
