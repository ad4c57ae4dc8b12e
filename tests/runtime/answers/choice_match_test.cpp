#include "runtime/answers/choice_match.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace choice_match_test {

TEST(ParseChoice, ReadsOneOption) {
  for (const char* text : {"B", "b", " (B) ", "[b]", "B.", "B)", "B:", "**B**", "`(B)`", "\"B\""})
    EXPECT_EQ(parse_choice(text), 'B') << text;
}

TEST(ParseChoice, RefusesMoreThanOneOption) {
  for (const char* text : {"", "AB", "(B", "B or C", "1", "(1)", "the B"}) EXPECT_FALSE(parse_choice(text)) << text;
}

TEST(AnswerChoice, ReadsTheLetterAfterTheLastAnswerPhrase) {
  EXPECT_EQ(answer_choice("Options (A) and (C) are wrong. The answer is (b)."), 'B');
  EXPECT_EQ(answer_choice("Answer: **D**"), 'D');
  EXPECT_EQ(answer_choice("I first thought the answer is A, but the correct choice is C."), 'C');
  EXPECT_EQ(answer_choice("Final answer: [c]"), 'C');
}

TEST(AnswerChoice, AWordAfterThePhraseIsNotALetter) {
  // "Apples" starts with an upper-case A, but is a word; the last "(X)" decides.
  EXPECT_EQ(answer_choice("Between (A) and (D), the answer is Apples, so (D)."), 'D');
  EXPECT_FALSE(answer_choice("The answer is unclear."));
}

TEST(AnswerChoice, ElseTakesTheLastUpperCaseLetterInParentheses) {
  EXPECT_EQ(answer_choice("Comparing (A) with (C), I pick (C) over (A), i.e. (C)."), 'C');
  EXPECT_FALSE(answer_choice("it is (a) guess"));  // lower case is prose: "(a)" is not an option here
}

TEST(ChoiceMatch, ComparesLetters) {
  EXPECT_TRUE(choice_match("The answer is (B).", "(B)"));
  EXPECT_TRUE(choice_match("b", "B"));
  EXPECT_FALSE(choice_match("The answer is (B).", "C"));
  EXPECT_FALSE(choice_match("no idea", "C"));
  EXPECT_FALSE(choice_match("C", "C or D"));  // an unreadable reference never matches
}

}  // namespace choice_match_test
}  // namespace kaisha::answers
