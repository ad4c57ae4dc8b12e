// effgen.md §23 item 15: f_req = min(10, 2·n_req) with selectable token
// profiles (Eq. 14 default; "paper-example" for App. E.2.2's examples).
#include <gtest/gtest.h>

#include "runtime/effgen/routing/requirement_counter.hpp"
#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing {
namespace {

using testing::analyzer_with;
using testing::analyzer_with_profile;

constexpr const char* kQuestion = "What is 2+2?";
constexpr const char* kResearch = "Research X and compare with Y, then summarize findings";
constexpr const char* kReport = "Create report including: (1) analysis, (2) data, (3) recommendations";

TEST(ComplexityRequirements, WhatIs2Plus2Scores2) {
  ComplexityScore s = analyzer_with().analyze(kQuestion);
  EXPECT_EQ(s.requirement_count, 1u);
  EXPECT_DOUBLE_EQ(s.requirements, 2.0);
}

TEST(ComplexityRequirements, SixRequirementsSaturateAt10) {
  // ? + ; + and + or + then + comma = 6 under Eq. 14.
  ComplexityScore s = analyzer_with().analyze("Why? Do A; B and C or D, then E");
  EXPECT_EQ(s.requirement_count, 6u);
  EXPECT_DOUBLE_EQ(s.requirements, 10.0);
}

TEST(ComplexityRequirements, ManyRequirementsStayCappedAt10) {
  ComplexityScore s = analyzer_with().analyze("a, b, c, d, e, f, g, h and i or j; k? l?");
  EXPECT_GT(s.requirement_count, 5u);
  EXPECT_DOUBLE_EQ(s.requirements, 10.0);
}

TEST(ComplexityRequirements, NoTokensScoreZero) {
  ComplexityScore s = analyzer_with().analyze("hello there");
  EXPECT_EQ(s.requirement_count, 0u);
  EXPECT_DOUBLE_EQ(s.requirements, 0.0);
}

TEST(ComplexityRequirements, PaperExampleProfileQuestion) {
  ComplexityScore s = analyzer_with_profile("paper-example").analyze(kQuestion);
  EXPECT_EQ(s.requirement_count, 1u);
  EXPECT_DOUBLE_EQ(s.requirements, 2.0);
}

TEST(ComplexityRequirements, PaperExampleProfileAndThenComma) {
  ComplexityScore s = analyzer_with_profile("paper-example").analyze(kResearch);
  EXPECT_EQ(s.requirement_count, 3u);
  EXPECT_DOUBLE_EQ(s.requirements, 6.0);
}

TEST(ComplexityRequirements, PaperExampleProfileNumberedItems) {
  ComplexityScore s = analyzer_with_profile("paper-example").analyze(kReport);
  EXPECT_EQ(s.requirement_count, 3u);
  EXPECT_DOUBLE_EQ(s.requirements, 6.0);
}

TEST(ComplexityRequirements, Eq14CountsTheCommasBetweenNumberedItems) {
  // The contradiction of effgen.md §21 item 4: Eq. 14 read literally gives
  // 3 items + 2 commas = 5 → 10.0 for the paper's third example.
  ComplexityScore s = analyzer_with().analyze(kReport);
  EXPECT_EQ(s.requirement_count, 5u);
  EXPECT_DOUBLE_EQ(s.requirements, 10.0);
  // The first two examples agree with Eq. 14.
  EXPECT_DOUBLE_EQ(analyzer_with().analyze(kResearch).requirements, 6.0);
}

TEST(ComplexityRequirements, MainTextProfileCountsConjunctionsNotCommasOrThen) {
  ComplexityScore s = analyzer_with_profile("main-text").analyze(kResearch);
  EXPECT_EQ(s.requirement_count, 1u);  // only "and"
  EXPECT_DOUBLE_EQ(s.requirements, 2.0);
}

TEST(ComplexityRequirements, UnknownProfileIsAnError) {
  AnalyzerOptions o;
  o.requirement_profile = "eq15";
  auto a = ComplexityAnalyzer::create(testing::shipped_tables(), o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, "config");
  EXPECT_NE(a.error().message.find("unknown requirement profile 'eq15'"), std::string::npos) << a.error().message;
  EXPECT_NE(a.error().message.find("paper-example"), std::string::npos) << a.error().message;
}

RequirementCounts counts(std::string_view text) {
  ScannedText t;
  scan_text(text, t);
  return count_requirements(t);
}

TEST(RequirementCounter, NumberedItemForms) {
  EXPECT_EQ(counts("(1) a (2) b").numbered_item, 2u);
  EXPECT_EQ(counts("do 1) a 2) b").numbered_item, 2u);
  EXPECT_EQ(counts("1. a\n  2. b\n10. c").numbered_item, 3u);
  // Years, amounts, versions and sentence ends are not items.
  EXPECT_EQ(counts("in 2024. Then (2024) costs $3.50 for v2.0 and I have 3. ok").numbered_item, 0u);
}

TEST(RequirementCounter, BulletsStartALine) {
  EXPECT_EQ(counts("- a\n* b\n  \xE2\x80\xA2 c\nx - y").bullet, 3u);
  EXPECT_EQ(counts("-a\n--- b").bullet, 0u);
}

TEST(RequirementCounter, ThousandsSeparatorIsNotAComma) { EXPECT_EQ(counts("pay 1,000,000 now, later").comma, 1u); }

TEST(RequirementCounter, ConjunctionsAreWholeWords) {
  RequirementCounts c = counts("AND android Or orange then thenceforth");
  EXPECT_EQ(c.and_word, 1u);
  EXPECT_EQ(c.or_word, 1u);
  EXPECT_EQ(c.then_word, 1u);
}

}  // namespace
}  // namespace kaisha::routing
