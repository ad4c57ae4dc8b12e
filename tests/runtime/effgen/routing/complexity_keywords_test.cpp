// effgen.md §23 items 16–17: f_dom / f_tool = min(10, 2.5·categories hit),
// phrase matching, custom categories; f_reas precedence.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing {
namespace {

using testing::analyzer_with;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ComplexityDomains, DebugCodeAndForecastBudgetScores5) {
  ComplexityScore s = analyzer_with().analyze("debug this code and forecast the budget");
  EXPECT_THAT(s.domains_hit, ElementsAre("technical", "financial"));
  EXPECT_DOUBLE_EQ(s.domain, 5.0);
}

TEST(ComplexityDomains, FourDomainsScore10) {
  ComplexityScore s = analyzer_with().analyze("research the market data for a legal contract");
  EXPECT_THAT(s.domains_hit, ElementsAre("research", "business", "data", "legal"));
  EXPECT_DOUBLE_EQ(s.domain, 10.0);
}

TEST(ComplexityDomains, MoreThanFourDomainsStayAt10) {
  ComplexityScore s = analyzer_with().analyze("code research market design data experiment law budget");
  EXPECT_EQ(s.domains_hit.size(), 8u);
  EXPECT_DOUBLE_EQ(s.domain, 10.0);
}

TEST(ComplexityDomains, MatchingIsWholeWordAndCaseInsensitive) {
  // "capital" is financial, but "api" inside it is not technical; "Codes" is not "code".
  ComplexityScore s = analyzer_with().analyze("CAPITAL Codes");
  EXPECT_THAT(s.domains_hit, ElementsAre("financial"));
}

TEST(ComplexityTools, MultiWordPhrasesMatchWordsInARow) {
  EXPECT_THAT(analyzer_with().analyze("please find online").tool_categories_hit, ElementsAre("web_search"));
  EXPECT_THAT(analyzer_with().analyze("Look-up prices").tool_categories_hit, ElementsAre("web_search"));
  // "find" alone, or the words split by punctuation, do not match.
  EXPECT_THAT(analyzer_with().analyze("find it, online? no: look, up").tool_categories_hit,
              ElementsAre("web_search"));  // "online" alone is its own indicator
  EXPECT_THAT(analyzer_with().analyze("look, up and find").tool_categories_hit, IsEmpty());
  EXPECT_THAT(analyzer_with().analyze("a media file").tool_categories_hit, ElementsAre("file_operations", "video"));
}

TEST(ComplexityTools, EachCategoryCountsOnce) {
  ComplexityScore s = analyzer_with().analyze("calculate, compute and sum the math");
  EXPECT_THAT(s.tool_categories_hit, ElementsAre("calculator"));
  EXPECT_DOUBLE_EQ(s.tools, 2.5);
}

TEST(ComplexityTools, FourCategoriesSaturate) {
  ComplexityScore s = analyzer_with().analyze("search python calculate csv sql video");
  EXPECT_EQ(s.tool_categories_hit.size(), 6u);
  EXPECT_DOUBLE_EQ(s.tools, 10.0);
}

TEST(ComplexityCustom, NewDomainIsCounted) {
  AnalyzerOptions o;
  o.custom_domains = {{"medical", {"diagnosis", "clinical trial"}}};
  ComplexityScore s = analyzer_with(o).analyze("design a clinical trial");
  EXPECT_THAT(s.domains_hit, ElementsAre("creative", "medical"));
  EXPECT_DOUBLE_EQ(s.domain, 5.0);
}

TEST(ComplexityCustom, ExistingNameExtendsTheCategory) {
  AnalyzerOptions o;
  o.custom_domains = {{"legal", {"gdpr"}}};
  o.custom_tool_categories = {{"vector_db", {"embedding index"}}, {"calculator", {"tally"}}};
  ComplexityScore s = analyzer_with(o).analyze("tally the GDPR fines in the embedding index");
  EXPECT_THAT(s.domains_hit, ElementsAre("legal"));
  EXPECT_THAT(s.tool_categories_hit, ElementsAre("calculator", "vector_db"));
}

TEST(ComplexityCustom, PhraseWithoutAWordIsRejected) {
  AnalyzerOptions o;
  o.custom_tool_categories = {{"shell", {"$$"}}};
  auto a = ComplexityAnalyzer::create(testing::shipped_tables(), o);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("custom_tool_categories.shell"), std::string::npos) << a.error().message;
}

TEST(ComplexityReasoning, ListAndCompareScores7) {
  ComplexityScore s = analyzer_with().analyze("list and compare");
  EXPECT_DOUBLE_EQ(s.reasoning, 7.0);
  EXPECT_EQ(s.reasoning_level, "complex");
}

TEST(ComplexityReasoning, SynthesizeScores9) {
  ComplexityScore s = analyzer_with().analyze("synthesize");
  EXPECT_DOUBLE_EQ(s.reasoning, 9.0);
  EXPECT_EQ(s.reasoning_level, "very_complex");
}

TEST(ComplexityReasoning, HelloScoresDefault5) {
  ComplexityScore s = analyzer_with().analyze("hello");
  EXPECT_DOUBLE_EQ(s.reasoning, 5.0);
  EXPECT_EQ(s.reasoning_level, "");
}

TEST(ComplexityReasoning, SimpleAndModerateLevels) {
  EXPECT_DOUBLE_EQ(analyzer_with().analyze("What is the capital of France").reasoning, 3.0);
  EXPECT_DOUBLE_EQ(analyzer_with().analyze("define and explain entropy").reasoning, 5.0);
  // "what" alone is not the phrase "what is".
  EXPECT_DOUBLE_EQ(analyzer_with().analyze("what a day").reasoning, 5.0);
}

TEST(ComplexityReasoning, PhraseIndicatorCreateStrategy) {
  EXPECT_DOUBLE_EQ(analyzer_with().analyze("Create strategy for Q3").reasoning, 9.0);
  EXPECT_DOUBLE_EQ(analyzer_with().analyze("create a strategy").reasoning, 5.0);
}

TEST(ComplexityAnalyzer, MakesNoModelCallsAndIsDeterministic) {
  // The analyzer has no model dependency at all (kaisha_routing does not link
  // kaisha_llm); determinism is what makes journalled decisions replayable.
  ComplexityAnalyzer a = analyzer_with();
  const char* q = "Research X and compare with Y, then summarize findings";
  EXPECT_EQ(a.analyze(q).to_json(), a.analyze(q).to_json());
}

}  // namespace
}  // namespace kaisha::routing
