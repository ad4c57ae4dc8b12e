#include "runtime/halo/replies/task_parse.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

const char* kQuery = "What is 2 + 2?";

TEST(TaskParse, ReadsTheTriple) {
  Parsed<TaskParse> p = parse_task_parse(
      R"(Sure! {"Task Type": "arithmetic", "Core Intent": "add two numbers", "Key Details": ""})", kQuery);
  EXPECT_EQ(p.value.task_type, "arithmetic");
  EXPECT_EQ(p.value.core_intent, "add two numbers");
  EXPECT_EQ(p.value.key_details, "");  // no details is a valid answer
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(TaskParse, EachUnreadableFieldIsTheRawQuery) {
  Parsed<TaskParse> p =
      parse_task_parse(R"({"Task Type": "arithmetic", "Core Intent": ["add"], "key details": "x"})", kQuery);
  EXPECT_EQ(p.value.task_type, "arithmetic");
  EXPECT_EQ(p.value.core_intent, kQuery);
  EXPECT_EQ(p.value.key_details, kQuery);
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem,
            "task parser reply: key \"Core Intent\" is an array, expected a string; used the raw query; key \"Key "
            "Details\" is missing (the object has \"Core Intent\", \"Task Type\", \"key details\"), used the raw "
            "query");
}

TEST(TaskParse, MalformedRepliesAreTheRawQuery) {
  for (const testing::Malformed& m : testing::malformed_replies("Task Type")) {
    Parsed<TaskParse> p = parse_task_parse(m.reply, kQuery);
    EXPECT_EQ(p.value.task_type, kQuery) << m.name;
    EXPECT_EQ(p.value.core_intent, kQuery) << m.name;
    EXPECT_EQ(p.value.key_details, kQuery) << m.name;
    EXPECT_TRUE(p.defaulted) << m.name;
    ASSERT_TRUE(p.problem.has_value()) << m.name;
    EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo
