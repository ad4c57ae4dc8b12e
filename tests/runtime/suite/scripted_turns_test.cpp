#include "runtime/suite/scripted_turns.hpp"

#include <gtest/gtest.h>

namespace kaisha::suite {
namespace scripted_turns_test {

std::string turns_error(const char* turns) {
  auto r = parse_scripted_turns(json::parse(turns));
  return r ? "(parsed)" : r.error().code + ": " + r.error().message;
}

TEST(ScriptedTurns, ReadsEveryKey) {
  auto r = parse_scripted_turns(json::parse(R"([
    {"expect": "look", "reply": "A door and a key."},
    {"expect": ["take key", "pick up key"], "reply": "Taken.", "otherwise": "The key is still there.", "attempts": 3},
    {"expect": "open door", "reply": "You are out.", "success": false}])"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].expect, (std::vector<std::string>{"look"}));
  EXPECT_EQ((*r)[0].attempts, 1);
  EXPECT_FALSE((*r)[0].otherwise);
  EXPECT_TRUE((*r)[0].success);  // the default, unused before the last turn
  EXPECT_EQ((*r)[1].expect, (std::vector<std::string>{"take key", "pick up key"}));
  EXPECT_EQ((*r)[1].otherwise, "The key is still there.");
  EXPECT_EQ((*r)[1].attempts, 3);
  EXPECT_EQ((*r)[2].reply, "You are out.");
  EXPECT_FALSE((*r)[2].success);
}

TEST(ScriptedTurns, ATurnWithoutExpectAcceptsAnything) {
  auto r = parse_scripted_turns(json::parse(R"([{"reply": "ok"}])"));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].expect.empty());
  EXPECT_TRUE((*r)[0].success);
}

TEST(ScriptedTurns, RefusesAnythingButANonEmptyArrayOfTurns) {
  EXPECT_EQ(turns_error(R"({"reply": "x"})"), "suite: \"turns\": expected an array of turns, got an object");
  EXPECT_EQ(turns_error("[]"), "suite: \"turns\": is empty (an interactive task needs at least one turn)");
  EXPECT_EQ(turns_error("[\"look\"]"), "suite: \"turns\"[0]: expected an object, got a string");
  json many = json::array();
  for (size_t i = 0; i <= kMaxTurns; ++i) many.push_back({{"reply", "r"}});
  auto r = parse_scripted_turns(many);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "\"turns\": has 1001 turns, more than the 1000 allowed");
}

TEST(ScriptedTurns, NamesTheTurnAndKeyOfEachMistake) {
  EXPECT_EQ(turns_error(R"([{"expect": "a"}])"),
            "suite: \"turns\"[0]: \"reply\" is missing (the observation after a matching answer)");
  EXPECT_EQ(turns_error(R"([{"reply": "a"}, {"reply": "b", "expect": ""}])"),
            "suite: \"turns\"[1].expect: is empty (leave \"expect\" out to accept any answer)");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "expect": []}])"),
            "suite: \"turns\"[0].expect: is an empty array (leave \"expect\" out to accept any answer)");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "expect": ["x", 2]}])"),
            "suite: \"turns\"[0].expect[1]: expected a string, got an integer");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "expect": 2}])"),
            "suite: \"turns\"[0].expect: expected a string or an array of strings, got an integer");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "regex": "x+"}])"),
            "suite: \"turns\"[0].regex: unknown key (keys: expect, reply, otherwise, attempts, success)");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "success": "yes"}])"),
            "suite: \"turns\"[0].success: expected a boolean, got a string");
}

TEST(ScriptedTurns, OnlyTheLastTurnSaysSuccess) {
  EXPECT_EQ(turns_error(R"([{"reply": "a", "success": true}, {"reply": "b"}])"),
            "suite: \"turns\"[0].success: only the last turn ends the episode, so only it may say \"success\"");
}

TEST(ScriptedTurns, AttemptsAreBoundedAndRetriesNeedAnObservation) {
  EXPECT_EQ(turns_error(R"([{"reply": "a", "attempts": 0}])"),
            "suite: \"turns\"[0].attempts: expected an integer from 1 to 100, got 0");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "attempts": 101, "otherwise": "o"}])"),
            "suite: \"turns\"[0].attempts: expected an integer from 1 to 100, got 101");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "attempts": 2}])"),
            "suite: \"turns\"[0]: \"attempts\" above 1 needs \"otherwise\" (the observation after a missed attempt)");
  EXPECT_EQ(turns_error(R"([{"reply": "a", "attempts": 2, "otherwise": "again"}])"), "(parsed)");
}

}  // namespace scripted_turns_test
}  // namespace kaisha::suite
