#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/optimizer_patterns.hpp"
#include "tests/runtime/effgen/prompt_optimizer/prompt_test_support.hpp"

namespace kaisha::prompt {
namespace {

using testing::shipped_patterns;

// effgen.md §21.3: thirty pairs, Tables 14–15 in order.
TEST(OptimizerPatterns, ShippedFileHasTheThirtyPairs) {
  const auto& p = shipped_patterns();
  ASSERT_EQ(p.compression.size(), 30u);
  EXPECT_EQ(p.compression.front().pattern, "in order to");
  EXPECT_EQ(p.compression.front().replacement, "to");
  EXPECT_EQ(p.compression[10].pattern, "it is important to note that");
  EXPECT_EQ(p.compression[10].replacement, "");
  EXPECT_EQ(p.compression[17].replacement, "ASAP");
  EXPECT_EQ(p.compression.back().pattern, "I think that");
  EXPECT_TRUE(p.custom.empty());
}

TEST(OptimizerPatterns, ShippedFileHasTheSevenPolitenessPhrases) {
  const auto& p = shipped_patterns();
  ASSERT_EQ(p.politeness.size(), 7u);
  EXPECT_EQ(p.politeness[0].phrase, "Please");
  EXPECT_TRUE(p.politeness[0].keep_in_user_text);
  EXPECT_EQ(p.politeness[5].phrase, "Make sure to");
  EXPECT_EQ(p.politeness[6].phrase, "Don't forget to");
  EXPECT_FALSE(p.instruction_verbs.empty());
  EXPECT_FALSE(p.instruction_leads.empty());
}

TEST(OptimizerPatterns, CustomPatternsAppend) {
  auto r = parse_optimizer_patterns(R"(
compression:
  - {pattern: "in order to", replacement: "to"}
custom_patterns:
  - {pattern: "artificial intelligence", replacement: "AI"}
)",
                                    "t.yaml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->custom.size(), 1u);
  EXPECT_TRUE(r->add_custom_pattern("machine learning", "ML").ok());
  EXPECT_EQ(r->custom.size(), 2u);
  EXPECT_FALSE(r->add_custom_pattern("", "x").ok());
}

TEST(OptimizerPatterns, ErrorNamesFileLineAndKey) {
  auto r = parse_optimizer_patterns(
      "compression:\n  - {pattern: \"a\", replacement: \"b\"}\n"
      "  - {pattern: [x], replacement: \"c\"}\n",
      "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "config");
  EXPECT_EQ(r.error().message, "p.yaml:3: compression[1].pattern: expected a string");
}

TEST(OptimizerPatterns, AKeyGivenTwiceIsRefused) {
  auto r = parse_optimizer_patterns("compression:\n  - {pattern: a, replacement: b}\ncompression:\n  - {pattern: c}\n",
                                    "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "p.yaml:3: 'compression' is given twice (lines 1 and 3); keep one");
}

TEST(OptimizerPatterns, UnknownKeyIsRefused) {
  auto r =
      parse_optimizer_patterns("compression:\n  - {pattern: a}\npoliteness:\n  - {phrase: x, keep: true}\n", "p.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "p.yaml:4: politeness[0].keep: unknown key");
  auto top = parse_optimizer_patterns("compresion: []\n", "p.yaml");
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.error().message, "p.yaml:1: compresion: unknown key");
}

TEST(OptimizerPatterns, MissingCompressionAndBadValues) {
  auto empty = parse_optimizer_patterns("", "e.yaml");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("e.yaml"), std::string::npos);
  auto none = parse_optimizer_patterns("politeness: []\n", "n.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("compression: missing or empty"), std::string::npos);
  auto blank = parse_optimizer_patterns("compression:\n  - {pattern: \"\", replacement: x}\n", "b.yaml");
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.error().message, "b.yaml:2: compression[0].pattern: must not be empty");
  auto flag = parse_optimizer_patterns(
      "compression: [{pattern: a}]\npoliteness:\n  - phrase: x\n    keep_in_user_text: maybe\n", "f.yaml");
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.error().message, "f.yaml:4: politeness[0].keep_in_user_text: expected true or false, got \"maybe\"");
}

TEST(OptimizerPatterns, SyntaxErrorAndMissingFile) {
  auto syntax = parse_optimizer_patterns("compression: [\n", "s.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.error().message.find("s.yaml:"), std::string::npos);
  EXPECT_NE(syntax.error().message.find("YAML syntax error"), std::string::npos);
  auto missing = load_optimizer_patterns("/nonexistent/optimizer_patterns.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "config");
  EXPECT_NE(missing.error().message.find("/nonexistent/optimizer_patterns.yaml"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::prompt
