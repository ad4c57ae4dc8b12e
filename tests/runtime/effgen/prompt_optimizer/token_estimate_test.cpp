#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/token_estimate.hpp"

namespace kaisha::prompt {
namespace {

// effgen.md §23 B.11 golden.
TEST(TokenEstimate, HelloWorldAverage) { EXPECT_DOUBLE_EQ(estimate_tokens("hello world"), 2.675); }

TEST(TokenEstimate, HelloWorldLiteralSum) {
  EXPECT_DOUBLE_EQ(estimate_tokens("hello world", TokenEstimateMode::literal_sum), 5.35);
}

TEST(TokenEstimate, EmptyAndWhitespace) {
  EXPECT_DOUBLE_EQ(estimate_tokens(""), 0.0);
  EXPECT_EQ(measure("  \n\t ").words, 0);
  EXPECT_EQ(measure("  \n\t ").chars, 5);
}

TEST(TokenEstimate, CountsCodePointsNotBytes) {
  TextSize s = measure("caf\xC3\xA9 \xE2\x80\x99");  // "café ’"
  EXPECT_EQ(s.chars, 6);
  EXPECT_EQ(s.words, 2);
}

TEST(TokenEstimate, SizesAddAcrossWhitespaceJoins) {
  TextSize a = measure("one two"), b = measure("three");
  TextSize sum = a;
  sum += b;
  sum.chars += 1;  // the joining space
  TextSize whole = measure("one two three");
  EXPECT_EQ(sum.chars, whole.chars);
  EXPECT_EQ(sum.words, whole.words);
}

}  // namespace
}  // namespace kaisha::prompt
