#include "runtime/hiva/environment/scripted_environment.hpp"

#include <gtest/gtest.h>

#include "runtime/suite/suite_file.hpp"

namespace kaisha::hiva {
namespace scripted_environment_test {

ScriptedEnvironment play(const char* turns) {
  suite::SuiteItem item;
  item.id = "room";
  item.input = "You are in a room.";
  item.format = "interactive";
  item.turns = json::parse(turns);
  auto env = ScriptedEnvironment::from_item(item);
  EXPECT_TRUE(env.ok()) << env.error().message;
  return std::move(env.value());
}

constexpr const char* kRoom = R"J([
  {"expect": ["open the desk", "search the desk"], "reply": "A key.", "otherwise": "Nothing happens.", "attempts": 2},
  {"expect": "take the key", "reply": "You hold the key."},
  {"expect": "unlock the door", "reply": "You are free.", "success": true}])J";

TEST(ScriptedEnvironment, MatchingAnswersPlayTheScriptToSuccess) {
  ScriptedEnvironment env = play(kRoom);
  auto a = env.step("I will SEARCH THE DESK carefully.");  // any of the substrings, any case
  EXPECT_EQ(a.text, "A key.");
  EXPECT_FALSE(a.success.has_value());
  EXPECT_FALSE(env.ended());
  EXPECT_EQ(env.turn(), 1u);
  EXPECT_EQ(env.step("take the key").text, "You hold the key.");
  auto last = env.step("Unlock the door.");
  EXPECT_EQ(last.text, "You are free.");
  EXPECT_EQ(last.success, true);
  EXPECT_EQ(last.score, 1.0);
  EXPECT_TRUE(env.ended());
  EXPECT_EQ(env.steps(), 3u);
}

TEST(ScriptedEnvironment, PlayingAWholeEpisodeJudgesItAtItsEndAndNotBefore) {
  // A 3-turn episode played again from the first turn with the answers so
  // far, as the stateless environment tool does it each turn.
  const std::vector<std::string> answers = {"search the desk", "wait", "take the key", "unlock the door"};
  auto prefix = [&](size_t n) { return std::vector<std::string>(answers.begin(), answers.begin() + n); };
  auto after1 = play(kRoom).play(prefix(1));
  EXPECT_EQ(after1.text, "A key.");
  EXPECT_FALSE(after1.success.has_value());  // still running: no verdict yet
  // "wait" misses turn 2, which has one attempt: the episode is lost there.
  ScriptedEnvironment lost = play(kRoom);
  auto after2 = lost.play(prefix(2));
  EXPECT_EQ(after2.text, std::string(kEpisodeFailed));
  EXPECT_EQ(after2.success, false);
  EXPECT_TRUE(lost.ended());
  // Without the miss, three answers win it; one judged on its first turn
  // alone would have had no verdict.
  ScriptedEnvironment won = play(kRoom);
  auto all = won.play({"search the desk", "take the key", "unlock the door"});
  EXPECT_EQ(all.text, "You are free.");
  EXPECT_EQ(all.success, true);
  EXPECT_EQ(won.steps(), 3u);
  EXPECT_EQ(episode_so_far("You are in a room.", {"search the desk", "take the key"}, {"A key.", "You hold the key."}),
            "You are in a room.\n\nThe episode so far:\n\n[Turn 1] You answered:\nsearch the desk\n\nThe "
            "environment replied:\nA key.\n\n[Turn 2] You answered:\ntake the key\n\nThe environment "
            "replied:\nYou hold the key.\n\nAnswer the environment's last reply.");
}

TEST(ScriptedEnvironment, AMissWithAttemptsLeftStaysOnTheTurn) {
  ScriptedEnvironment env = play(kRoom);
  auto miss = env.step("dance");
  EXPECT_EQ(miss.text, "Nothing happens.");
  EXPECT_FALSE(miss.success.has_value());
  EXPECT_EQ(env.turn(), 0u);
  EXPECT_EQ(env.step("open the desk").text, "A key.");
  EXPECT_EQ(env.steps(), 2u);
}

TEST(ScriptedEnvironment, TheLastMissEndsTheEpisodeFailed) {
  ScriptedEnvironment env = play(kRoom);
  env.step("dance");
  auto lost = env.step("sing");
  EXPECT_EQ(lost.text, "Nothing happens.");
  EXPECT_EQ(lost.success, false);
  EXPECT_EQ(lost.score, 0.0);
  EXPECT_TRUE(env.ended());
}

TEST(ScriptedEnvironment, AMissWithoutOtherwiseEndsWithTheDefaultText) {
  ScriptedEnvironment env = play(kRoom);
  env.step("open the desk");
  auto lost = env.step("leave");
  EXPECT_EQ(lost.text, kEpisodeFailed);
  EXPECT_EQ(lost.success, false);
}

TEST(ScriptedEnvironment, AfterTheEndItRepeatsTheOutcome) {
  ScriptedEnvironment env = play(R"J([{"reply": "Done.", "success": false}])J");
  auto end = env.step("anything at all");  // no expect: any answer matches
  EXPECT_EQ(end.success, false);           // the script says a match ends it failed
  auto again = env.step("more");
  EXPECT_EQ(again.text, "The episode is over. Done.");
  EXPECT_EQ(again.success, false);
  EXPECT_EQ(env.steps(), 1u);
}

TEST(ScriptedEnvironment, RefusesATaskThatIsNotInteractiveOrHasBadTurns) {
  suite::SuiteItem item;
  item.id = "q7";
  item.format = "exact";
  auto not_interactive = ScriptedEnvironment::from_item(item);
  ASSERT_FALSE(not_interactive.ok());
  EXPECT_EQ(not_interactive.error().message, "task q7 is of format exact, not interactive");
  item.format = "interactive";
  item.turns = json::parse(R"J([{"expect": "x"}])J");
  auto bad = ScriptedEnvironment::from_item(item);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "task q7: \"turns\"[0]: \"reply\" is missing (the observation after a matching answer)");
}

TEST(ScriptedEnvironment, TurnsBuiltByHandStaySafe) {
  suite::ScriptedTurn retry;
  retry.expect = {"yes"};
  retry.reply = "ok";
  retry.attempts = 2;  // no "otherwise": parse_scripted_turns would refuse this
  ScriptedEnvironment env({retry});
  EXPECT_EQ(env.step("no").text, kTryAgain);
  ScriptedEnvironment empty({});
  EXPECT_TRUE(empty.ended());
  EXPECT_EQ(empty.step("x").success, false);
}

TEST(ScriptedEnvironment, TheExampleEpisodeCanBeWon) {
  auto suite = suite::load_suite_file(std::string(KAISHA_SOURCE_DIR) + "/examples/suites/interactive.jsonl");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  auto env = ScriptedEnvironment::from_item(suite->front());
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_EQ(env->step("Let me look around.").text, "Nothing happens. The desk is still there.");
  EXPECT_EQ(env->step("I open the desk.").text, "In the drawer lies a brass key.");
  EXPECT_EQ(env->step("I take the key.").text, "You hold the brass key. The door has a keyhole.");
  auto end = env->step("I use the key on the door.");
  EXPECT_EQ(end.success, true);
  EXPECT_EQ(end.text, "The door swings open. You are free.");
}

}  // namespace scripted_environment_test
}  // namespace kaisha::hiva
