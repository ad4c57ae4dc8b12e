#include "runtime/hiva/environment/answer_check.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace answer_check_test {

suite::SuiteItem task(std::string format, std::string answer) {
  suite::SuiteItem it;
  it.id = "t";
  it.input = "q";
  it.format = std::move(format);
  it.answer = std::move(answer);
  return it;
}

TEST(CheckAnswer, ExactSaysWhatWasExpectedAndGiven) {
  auto right = check_answer(task("exact", "Canberra"), " Canberra\n");
  EXPECT_EQ(right.success, true);
  EXPECT_EQ(right.score, 1.0);
  EXPECT_EQ(right.text, "Correct: the answer matches the reference.");
  auto wrong = check_answer(task("exact", "Canberra"), "Sydney");
  EXPECT_EQ(wrong.success, false);
  EXPECT_EQ(wrong.score, 0.0);
  EXPECT_EQ(wrong.text, "Wrong: expected \"Canberra\", got \"Sydney\".");
}

TEST(CheckAnswer, MultipleChoiceNamesBothOptions) {
  EXPECT_EQ(check_answer(task("multiple_choice", "B"), "The answer is (B).").success, true);
  auto wrong = check_answer(task("multiple_choice", "(B)"), "My answer: C.");
  EXPECT_EQ(wrong.success, false);
  EXPECT_EQ(wrong.text, "Wrong: the answer picks (C), the right option is (B).");
  auto none = check_answer(task("multiple_choice", "B"), "no idea");
  EXPECT_EQ(none.text,
            "Wrong: no option letter could be read from the answer \"no idea\" (say \"The answer is (X)\").");
}

TEST(CheckAnswer, F1ScoresOverlapAndSucceedsOnANormalisedExactMatch) {
  auto partial = check_answer(task("f1", "Greater Manchester Metrolink"), "Manchester Metrolink");
  EXPECT_EQ(partial.success, false);
  EXPECT_DOUBLE_EQ(*partial.score, 0.8);
  EXPECT_EQ(partial.text,
            "Wrong: token F1 0.80 against the reference \"Greater Manchester Metrolink\"; the answer was \"Manchester "
            "Metrolink\".");
  auto exact = check_answer(task("f1", "Greater Manchester Metrolink"), "the greater Manchester Metrolink.");
  EXPECT_EQ(exact.success, true);
  EXPECT_DOUBLE_EQ(*exact.score, 1.0);
}

TEST(CheckAnswer, NumericNeverRevealsTheReferenceByDefault) {
  suite::SuiteItem it = task("numeric", "29");
  auto right = check_answer(it, "36 - 7 = 29\n#### 29");
  EXPECT_EQ(right.success, true);
  EXPECT_EQ(right.text, "Correct: the answer's number, 29, is right.");
  auto wrong = check_answer(it, "#### 31");
  EXPECT_EQ(wrong.success, false);
  EXPECT_EQ(wrong.text, "Wrong: the answer's number, 31, is not the right one.");
  EXPECT_EQ(wrong.text.find("29"), std::string::npos);
  auto none = check_answer(it, "many");
  EXPECT_EQ(none.success, false);
  EXPECT_NE(none.text.find("no number could be read"), std::string::npos);
}

TEST(CheckAnswer, NumericUsesTheItemsTolerance) {
  suite::SuiteItem it = task("numeric", "12.57");
  EXPECT_EQ(check_answer(it, "about 12.566").success, false);  // default: relative 1e-6
  it.tolerance = 0.01;
  EXPECT_EQ(check_answer(it, "about 12.566").success, true);
}

TEST(CheckAnswer, LatexSaysRightOrWrongWithoutTheReference) {
  suite::SuiteItem it = task("latex", "\\frac{1}{2}");
  auto right = check_answer(it, "So $\\boxed{\\dfrac12}$.");
  EXPECT_EQ(right.success, true);
  EXPECT_EQ(right.text, "Correct: the final answer \"\\frac{1}{2}\" is right.");
  auto wrong = check_answer(it, "So $\\boxed{\\frac{1}{3}}$.");
  EXPECT_EQ(wrong.success, false);
  EXPECT_EQ(wrong.text, "Wrong: the final answer reads \"\\frac{1}{3}\", which is not the right answer.");
  auto unboxed = check_answer(it, "one third");
  EXPECT_EQ(unboxed.text,
            "Wrong: the final answer reads \"onethird\" (no \\boxed{} found: the whole answer was compared), which is "
            "not the right answer.");
  EXPECT_EQ(unboxed.text.find("frac{1}{2}"), std::string::npos);
}

TEST(CheckAnswer, TheOptionOverridesDisclosure) {
  CheckOptions reveal{true}, hide{false};
  EXPECT_EQ(check_answer(task("latex", "\\frac{1}{2}"), "\\boxed{1}", reveal).text,
            "Wrong: the final answer reads \"1\"; the reference is \"\\frac{1}{2}\".");
  EXPECT_EQ(check_answer(task("numeric", "29"), "31", reveal).text, "Wrong: expected 29, the answer gives 31.");
  EXPECT_EQ(check_answer(task("exact", "Canberra"), "Sydney", hide).text,
            "Wrong: the answer \"Sydney\" does not match the reference.");
  EXPECT_EQ(check_answer(task("multiple_choice", "B"), "C", hide).text,
            "Wrong: the answer picks (C), which is not the right option.");
  EXPECT_EQ(check_answer(task("f1", "Paris"), "London", hide).text,
            "Wrong: token F1 0.00 (the answer \"London\" is not an exact match).");
}

TEST(CheckAnswer, FormatsWithoutAReferenceAreNotJudgedHere) {
  suite::SuiteItem code = task("code", "def f(): pass");
  code.tests = "assert f() is None";
  auto c = check_answer(code, "def f(): pass");
  EXPECT_FALSE(c.success.has_value());
  EXPECT_FALSE(c.score.has_value());
  suite::SuiteItem none;
  none.input = "q";
  auto n = check_answer(none, "x");
  EXPECT_FALSE(n.success.has_value());
  EXPECT_EQ(n.text, "This task has no reference answer, so the environment cannot judge the answer.");
}

TEST(CheckAnswer, QuotesALongAnswerOnOneShortLine) {
  std::string answer = "line one\n" + std::string(1000, 'y');
  auto f = check_answer(task("exact", "x"), answer);
  EXPECT_EQ(f.text.find('\n'), std::string::npos);
  EXPECT_LT(f.text.size(), 400u);
}

}  // namespace answer_check_test
}  // namespace kaisha::hiva
