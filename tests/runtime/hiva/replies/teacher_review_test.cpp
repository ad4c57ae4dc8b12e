#include "runtime/hiva/replies/teacher_review.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace teacher_review_test {

TEST(TeacherReview, ReadsVerdictAndFeedback) {
  Parsed<TeacherReview> p = parse_teacher_review(
      "VERDICT: INCORRECT\n<FEEDBACK>Check how you distributed the minus sign in step 2.</FEEDBACK>");
  EXPECT_EQ(p.value.correct, false);
  EXPECT_EQ(p.value.feedback, "Check how you distributed the minus sign in step 2.");
  EXPECT_EQ(p.problem, std::nullopt);
  Parsed<TeacherReview> ok = parse_teacher_review("**Verdict:** Correct ✅\r\n<feedback>Clear work.</feedback>");
  EXPECT_EQ(ok.value.correct, true);
  EXPECT_EQ(ok.value.feedback, "Clear work.");
}

TEST(TeacherReview, AMissingVerdictIsUnknown) {
  Parsed<TeacherReview> p = parse_teacher_review("<FEEDBACK>符号を確認してください。</FEEDBACK>");
  EXPECT_EQ(p.value.correct, std::nullopt);
  EXPECT_EQ(p.value.feedback, "符号を確認してください。");
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem, "math teacher reply: no VERDICT");
  Parsed<TeacherReview> odd = parse_teacher_review("VERDICT: unclear\nLook again at step 3.");
  EXPECT_EQ(odd.value.correct, std::nullopt);
  EXPECT_NE(odd.problem->find("the verdict is \"unclear\", expected CORRECT or INCORRECT"), std::string::npos);
  EXPECT_NE(odd.problem->find("no <FEEDBACK> tag"), std::string::npos) << *odd.problem;
}

}  // namespace teacher_review_test
}  // namespace kaisha::hiva
