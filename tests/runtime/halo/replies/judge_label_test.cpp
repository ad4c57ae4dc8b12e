#include "runtime/halo/replies/judge_label.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

TEST(NodeLabel, ReadsTheThreeLabels) {
  EXPECT_EQ(parse_judge_label(R"({"status": "success"})").value, NodeLabel::success);
  EXPECT_EQ(parse_judge_label("```json\n{\"status\": \"fail\"}\n```").value, NodeLabel::fail);
  Parsed<NodeLabel> c = parse_judge_label(R"(Verdict: {"status": " Continue "})");
  EXPECT_EQ(c.value, NodeLabel::continue_);
  EXPECT_FALSE(c.defaulted);
  EXPECT_EQ(c.problem, std::nullopt);
  EXPECT_EQ(to_string(NodeLabel::continue_), "continue");
}

TEST(NodeLabel, WrongTypeNamesTheChoices) {
  Parsed<NodeLabel> p = parse_judge_label(R"({"status": 1})");
  EXPECT_EQ(p.value, NodeLabel::continue_);
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem,
            "judge reply: key \"status\" is a number, expected one of success|fail|continue; the label is continue");
}

TEST(NodeLabel, UnknownWordIsContinue) {
  Parsed<NodeLabel> p = parse_judge_label(R"({"status": "partial success"})");
  EXPECT_EQ(p.value, NodeLabel::continue_);
  EXPECT_TRUE(p.defaulted);
  EXPECT_NE(p.problem->find(R"("status" is "partial success", expected one of success|fail|continue)"),
            std::string::npos)
      << *p.problem;
}

TEST(NodeLabel, MalformedRepliesAreContinue) {
  for (const testing::Malformed& m : testing::malformed_replies("status")) {
    Parsed<NodeLabel> p = parse_judge_label(m.reply);
    EXPECT_EQ(p.value, NodeLabel::continue_) << m.name;
    EXPECT_TRUE(p.defaulted) << m.name;
    ASSERT_TRUE(p.problem.has_value()) << m.name;
    EXPECT_EQ(p.problem->rfind("judge reply: ", 0), 0u) << *p.problem;
    EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo
