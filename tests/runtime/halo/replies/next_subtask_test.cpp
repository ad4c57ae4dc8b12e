#include "runtime/halo/replies/next_subtask.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

const char* kQStar = "Write a function that returns the n-th prime.";

TEST(NextSubtask, ReadsTheSubtask) {
  Parsed<NextSubtask> p = parse_next_subtask(R"({"next subtask": "  List the primes below 100.\n"})", kQStar);
  EXPECT_FALSE(p.value.stop);
  EXPECT_EQ(p.value.subtask, "List the primes below 100.");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(NextSubtask, StopIsTheWholeValue) {
  for (const char* reply : {R"({"next subtask": "stop"})", R"({"next subtask": " STOP\n"})",
                            "```json\n{\"next subtask\": \"Stop\"}\n```"}) {
    Parsed<NextSubtask> p = parse_next_subtask(reply, kQStar);
    EXPECT_TRUE(p.value.stop) << reply;
    EXPECT_EQ(p.value.subtask, "");
    EXPECT_EQ(p.problem, std::nullopt);
  }
}

// HALO's reference stopped on any reply containing "stop".
TEST(NextSubtask, ASubtaskMentioningStopIsASubtask) {
  for (const char* text : {"stop the leak", "Stop.", "Find the bus stop", "nonstop", "stop stop"}) {
    Parsed<NextSubtask> p = parse_next_subtask(std::string(R"({"next subtask": ")") + text + "\"}", kQStar);
    EXPECT_FALSE(p.value.stop) << text;
    EXPECT_EQ(p.value.subtask, text);
  }
  // Nor does the word elsewhere in the reply stop anything.
  Parsed<NextSubtask> p = parse_next_subtask(R"(Do not stop yet: {"next subtask": "Check n = 1"})", kQStar);
  EXPECT_FALSE(p.value.stop);
  EXPECT_EQ(p.value.subtask, "Check n = 1");
}

TEST(NextSubtask, UnreadableIsTheRefinedQuery) {
  for (const char* reply : {R"({"next subtask": ""})", R"({"next subtask": 3})", R"({"next subtask": ["a", "b"]})",
                            R"({"next_subtask": "a"})"}) {
    Parsed<NextSubtask> p = parse_next_subtask(reply, kQStar);
    EXPECT_FALSE(p.value.stop) << reply;
    EXPECT_EQ(p.value.subtask, kQStar) << reply;
    EXPECT_TRUE(p.defaulted) << reply;
    ASSERT_TRUE(p.problem.has_value());
    EXPECT_TRUE(p.problem->ends_with("the next subtask is the refined query")) << *p.problem;
  }
  EXPECT_EQ(*parse_next_subtask(R"({"next subtask": 3})", kQStar).problem,
            "planner reply: key \"next subtask\" is a number, expected a subtask or \"stop\"; the next subtask is "
            "the refined query");
}

TEST(NextSubtask, MalformedRepliesAreTheRefinedQuery) {
  for (const testing::Malformed& m : testing::malformed_replies("next subtask")) {
    Parsed<NextSubtask> p = parse_next_subtask(m.reply, kQStar);
    EXPECT_FALSE(p.value.stop) << m.name;
    EXPECT_EQ(p.value.subtask, kQStar) << m.name;
    EXPECT_TRUE(p.defaulted) << m.name;
    ASSERT_TRUE(p.problem.has_value()) << m.name;
    EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo
