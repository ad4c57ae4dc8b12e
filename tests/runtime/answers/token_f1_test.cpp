#include "runtime/answers/token_f1.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace token_f1_test {

TEST(AnswerTokens, NormalisesCasePunctuationAndArticles) {
  EXPECT_EQ(answer_tokens("The Eiffel  Tower, in Paris!"),
            (std::vector<std::string>{"eiffel", "tower", "in", "paris"}));
  EXPECT_EQ(answer_tokens("don't re-use"), (std::vector<std::string>{"dont", "reuse"}));
  EXPECT_EQ(answer_tokens("Theatre an Anode"), (std::vector<std::string>{"theatre", "anode"}));  // whole words only
  EXPECT_TRUE(answer_tokens(" a, the. ").empty());
}

TEST(NormalizedExactMatch, IgnoresWhatNormalisationDrops) {
  EXPECT_TRUE(normalized_exact_match("the Greater Manchester Metrolink.", "Greater Manchester Metrolink"));
  EXPECT_FALSE(normalized_exact_match("Metrolink Greater Manchester", "Greater Manchester Metrolink"));
}

TEST(TokenF1, IsTheHarmonicMeanOfTokenPrecisionAndRecall) {
  // answer: {manchester, metrolink} (2), reference: {greater, manchester, metrolink} (3), common 2:
  // P = 1, R = 2/3, F1 = 0.8.
  EXPECT_DOUBLE_EQ(token_f1("Manchester Metrolink", "Greater Manchester Metrolink"), 0.8);
  EXPECT_DOUBLE_EQ(token_f1("Greater Manchester Metrolink", "the greater manchester metrolink"), 1.0);
  EXPECT_DOUBLE_EQ(token_f1("London", "Paris"), 0.0);
}

TEST(TokenF1, CountsRepeatedTokensOnce) {
  // answer {paris, paris} vs {paris}: common 1, P = 1/2, R = 1, F1 = 2/3.
  EXPECT_DOUBLE_EQ(token_f1("Paris Paris", "Paris"), 2.0 / 3.0);
}

TEST(TokenF1, EmptySidesScoreOneOnlyTogether) {
  EXPECT_DOUBLE_EQ(token_f1("the", "a"), 1.0);
  EXPECT_DOUBLE_EQ(token_f1("", "Paris"), 0.0);
  EXPECT_DOUBLE_EQ(token_f1("Paris", "!"), 0.0);
}

}  // namespace token_f1_test
}  // namespace kaisha::answers
