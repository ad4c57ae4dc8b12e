#include "runtime/answers/numeric_match.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace numeric_match_test {

TEST(ParseNumber, ReadsTheWrittenForms) {
  EXPECT_EQ(parse_number("42"), 42.0);
  EXPECT_EQ(parse_number(" -7\n"), -7.0);
  EXPECT_EQ(parse_number("1,234,567"), 1234567.0);
  EXPECT_EQ(parse_number("2.50"), 2.5);
  EXPECT_EQ(parse_number(".5"), 0.5);
  EXPECT_EQ(parse_number("-.5"), -0.5);
  EXPECT_EQ(parse_number("1e6"), 1e6);
  EXPECT_EQ(parse_number("2.5E-3"), 2.5e-3);
}

TEST(ParseNumber, RefusesAnythingButOneNumber) {
  EXPECT_FALSE(parse_number(""));
  EXPECT_FALSE(parse_number("forty-two"));
  EXPECT_FALSE(parse_number("42 apples"));
  EXPECT_FALSE(parse_number("$42"));
  EXPECT_FALSE(parse_number("1,2"));    // not a thousands group
  EXPECT_FALSE(parse_number("3/4"));    // fractions are LaTeX answers
  EXPECT_FALSE(parse_number("1e400"));  // not a finite double
  EXPECT_FALSE(parse_number("-"));
}

TEST(AnswerNumber, TakesTheBoxedNumberFirst) { EXPECT_EQ(answer_number(R"(3 + 4 = 7, so \boxed{7} and then 9)"), 7.0); }

TEST(AnswerNumber, TakesTheNumberAfterTheGsm8kMarker) {
  EXPECT_EQ(answer_number("She has 3 + 5 = 8 apples.\n#### 8\nThat took 2 steps."), 8.0);
}

TEST(AnswerNumber, TakesTheFirstNumberAfterTheLastAnswerPhrase) {
  EXPECT_EQ(answer_number("The answer is 12 apples (from 3 boxes)."), 12.0);
  EXPECT_EQ(answer_number("Answer: $1,200.50 in total, 4 payments"), 1200.5);
}

TEST(AnswerNumber, ElseTakesTheLastNumber) {
  EXPECT_EQ(answer_number("First 6 * 7 = 42, so 42 it is."), 42.0);
  EXPECT_EQ(answer_number("a 50% rise"), 50.0);
  EXPECT_EQ(answer_number("between 3-4 hours"), 4.0);  // '-' after a digit is not a sign
  EXPECT_FALSE(answer_number("no digits here"));
}

TEST(NumbersMatch, UsesARelativeToleranceByDefault) {
  EXPECT_TRUE(numbers_match(1000000.5, 1000000.0));   // 0.5 <= 1e-6 * 1e6 = 1
  EXPECT_FALSE(numbers_match(1000002.0, 1000000.0));  // 2 > 1
  EXPECT_TRUE(numbers_match(0.0000005, 0.0));         // at least 1e-6
  EXPECT_FALSE(numbers_match(0.00001, 0.0));
}

TEST(NumbersMatch, UsesTheAbsoluteToleranceWhenGiven) {
  EXPECT_TRUE(numbers_match(3.14, 3.14159, 0.01));
  EXPECT_FALSE(numbers_match(3.1, 3.14159, 0.01));
  EXPECT_FALSE(numbers_match(1000000.5, 1000000.0, 0.0));
}

TEST(NumericMatch, ComparesTheAnswersNumberWithTheReference) {
  EXPECT_TRUE(numeric_match("So the total is 1,000.", "1000"));
  EXPECT_TRUE(numeric_match("#### 18", "18.0"));
  EXPECT_FALSE(numeric_match("#### 17", "18"));
  EXPECT_FALSE(numeric_match("no number", "18"));
  EXPECT_FALSE(numeric_match("18", "eighteen"));
}

}  // namespace numeric_match_test
}  // namespace kaisha::answers
