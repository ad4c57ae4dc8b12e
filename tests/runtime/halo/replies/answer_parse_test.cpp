#include "runtime/halo/replies/answer_parse.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

TEST(MmluAnswer, ReadsOneLetter) {
  EXPECT_EQ(parse_mmlu_answer(R"({"answer": "A"})").value, "A");
  EXPECT_EQ(parse_mmlu_answer(R"({"answer": " d "})").value, "D");
  Parsed<std::string> p = parse_mmlu_answer("```json\n{\"answer\": \"B\"}\n```");
  EXPECT_EQ(p.value, "B");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(MmluAnswer, AnythingElseIsC) {
  for (const char* reply : {R"({"answer": "E"})", R"({"answer": "AB"})", R"x({"answer": "(A)"})x",
                            R"({"answer": "The answer is A"})", R"({"answer": ""})", R"({"answer": 1})"}) {
    Parsed<std::string> p = parse_mmlu_answer(reply);
    EXPECT_EQ(p.value, "C") << reply;
    EXPECT_TRUE(p.defaulted) << reply;
    ASSERT_TRUE(p.problem.has_value());
    EXPECT_TRUE(p.problem->ends_with("the answer is C")) << *p.problem;
  }
  EXPECT_EQ(*parse_mmlu_answer(R"({"answer": "E"})").problem,
            "MMLU answer parser reply: \"answer\" is \"E\", expected one letter A-D; the answer is C");
}

TEST(MathAnswer, ReadsTheBoxedFormula) {
  Parsed<MathAnswer> p = parse_math_answer(R"({"answer": "boxed{\\dfrac12}"})");
  EXPECT_EQ(p.value.latex, R"(\dfrac12)");
  EXPECT_EQ(p.value.normalized, R"(\frac{1}{2})");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
  EXPECT_EQ(parse_math_answer(R"({"answer": "boxed$x = 3$"})").value.normalized, "3");
  EXPECT_EQ(parse_math_answer(R"({"answer": "\\boxed{63\\pi}"})").value.latex, R"(63\pi)");
  // The prose's braces come before the object: the object holding "answer" is read.
  EXPECT_EQ(parse_math_answer(R"(Since \frac{a}{b} = 2, {"answer": "boxed{2}"})").value.normalized, "2");
}

TEST(MathAnswer, AnUnboxedFormulaIsUsedAsWritten) {
  Parsed<MathAnswer> p = parse_math_answer(R"({"answer": "$\\sqrt2$"})");
  EXPECT_EQ(p.value.latex, R"($\sqrt2$)");
  EXPECT_EQ(p.value.normalized, R"(\sqrt{2})");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "MATH answer parser reply: \"answer\" is not in boxed{...}; used as written");
}

TEST(MathAnswer, NoFormulaIsZero) {
  for (const char* reply :
       {R"({"answer": "boxed{}"})", R"({"answer": "  "})", R"({"answer": "$$"})", R"({"answer": ["boxed{1}"]})"}) {
    Parsed<MathAnswer> p = parse_math_answer(reply);
    EXPECT_EQ(p.value.latex, "0") << reply;
    EXPECT_EQ(p.value.normalized, "0") << reply;
    EXPECT_TRUE(p.defaulted) << reply;
    ASSERT_TRUE(p.problem.has_value());
    EXPECT_TRUE(p.problem->ends_with("the answer is boxed$0$")) << *p.problem;
  }
}

TEST(AnswerParse, MalformedRepliesAreTheDefaults) {
  for (const testing::Malformed& m : testing::malformed_replies("answer")) {
    Parsed<std::string> mmlu = parse_mmlu_answer(m.reply);
    EXPECT_EQ(mmlu.value, "C") << m.name;
    EXPECT_TRUE(mmlu.defaulted) << m.name;
    EXPECT_NE(mmlu.problem->find(m.problem), std::string::npos) << m.name << ": " << *mmlu.problem;
    Parsed<MathAnswer> math = parse_math_answer(m.reply);
    EXPECT_EQ(math.value.normalized, "0") << m.name;
    EXPECT_TRUE(math.defaulted) << m.name;
    EXPECT_NE(math.problem->find(m.problem), std::string::npos) << m.name << ": " << *math.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo
