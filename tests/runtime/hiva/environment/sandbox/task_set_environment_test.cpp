// HiVA's environment for a task set: the four kinds chosen by an item's
// format, an interactive episode judged with its answers so far, and bad
// requests refused with the field they got wrong.
#include "runtime/hiva/environment/sandbox/task_set_environment.hpp"

#include <gtest/gtest.h>

#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {
namespace task_set_environment_test {

suite::SuiteItem item(const std::string& id, const std::string& format) {
  suite::SuiteItem i;
  i.id = id;
  i.input = "問題 " + id;
  i.format = format;
  return i;
}

TaskSetEnvironment environment() {
  std::map<std::string, suite::SuiteItem> items;
  suite::SuiteItem capital = item("capital", "exact");
  capital.answer = "東京";
  items[capital.id] = capital;
  suite::SuiteItem sum = item("sum", "numeric");
  sum.answer = "42";
  items[sum.id] = sum;
  suite::SuiteItem room = item("room", "interactive");
  room.turns = json::parse(R"J([{"expect": "look", "reply": "A door. 🚪"},
                                {"expect": "open", "reply": "You are out.", "success": true}])J");
  items[room.id] = room;
  suite::SuiteItem code = item("add", "code");
  code.tests = "assert add(2, 3) == 5\n";
  code.entry_point = "add";
  items[code.id] = code;
  return TaskSetEnvironment(std::move(items), 30);
}

TEST(TaskSetEnvironment, EachFormatIsJudgedByItsKindOfEnvironment) {
  EXPECT_EQ(environment_kind("code"), "unit_tests");
  EXPECT_EQ(environment_kind("interactive"), "interactive");
  EXPECT_EQ(environment_kind("latex"), "math");
  EXPECT_EQ(environment_kind("numeric"), "math");
  EXPECT_EQ(environment_kind("f1"), "metric");
  EXPECT_EQ(environment_kind("multiple_choice"), "metric");

  TaskSetEnvironment env = environment();
  EXPECT_EQ(env.name(), "hiva.environment");
  company::ToolResult right = env.judge(json{{"item", "capital"}, {"answer", " 東京 "}});
  ASSERT_TRUE(right.ok) << right.message;
  EXPECT_EQ(right.output["kind"], "metric");
  EXPECT_EQ(right.output["success"], true);
  EXPECT_EQ(right.output["continues"], false);
  EXPECT_EQ(right.message, right.output["text"]);

  company::ToolResult wrong = env.judge(json{{"item", "sum"}, {"answer", "the answer is 41"}});
  ASSERT_TRUE(wrong.ok) << wrong.message;  // a wrong answer is a judgment, not an error
  EXPECT_EQ(wrong.output["kind"], "math");
  EXPECT_EQ(wrong.output["success"], false);
}

TEST(TaskSetEnvironment, AnInteractiveEpisodeIsJudgedWithItsAnswersSoFar) {
  TaskSetEnvironment env = environment();
  company::ToolResult first = env.judge(json{{"item", "room"}, {"answer", "look"}, {"answers", {"look"}}});
  ASSERT_TRUE(first.ok) << first.message;
  EXPECT_EQ(first.output["kind"], "interactive");
  EXPECT_EQ(first.output["continues"], true);
  EXPECT_EQ(first.output["success"], nullptr);  // not over yet
  EXPECT_EQ(first.output["text"], "A door. 🚪");

  company::ToolResult second = env.judge(json{{"item", "room"}, {"answer", "open"}, {"answers", {"look", "open"}}});
  ASSERT_TRUE(second.ok) << second.message;
  EXPECT_EQ(second.output["continues"], false);
  EXPECT_EQ(second.output["success"], true);
  EXPECT_EQ(second.output["text"], "You are out.");
}

TEST(TaskSetEnvironment, AWrongProgramGetsTheFailingTestsText) {
  if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  TaskSetEnvironment env = environment();
  company::ToolResult r = env.judge(json{{"item", "add"}, {"answer", "def add(a, b):\n    return a - b\n"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["kind"], "unit_tests");
  EXPECT_EQ(r.output["success"], false);
  EXPECT_NE(r.message.find("assert add(2, 3) == 5"), std::string::npos) << r.message;
}

TEST(TaskSetEnvironment, BadRequestsAreRefusedNamingWhatWasWrong) {
  TaskSetEnvironment env = environment();
  auto refused = [&env](const json& request, const std::string& says) {
    company::ToolResult r = env.judge(request);
    EXPECT_FALSE(r.ok) << request.dump();
    EXPECT_NE(r.message.find(says), std::string::npos) << r.message;
  };
  refused(json::array(), "the request must be a JSON object");
  refused(json{{"answer", "x"}}, "request.item must be a string");
  refused(json{{"item", 7}, {"answer", "x"}}, "request.item must be a string");
  refused(json{{"item", "capital"}}, "request.answer must be a string");
  refused(json{{"item", "なし"}, {"answer", "x"}}, "no task 'なし' in the task set");
  refused(json{{"item", "room"}, {"answer", "x"}, {"answers", "x"}}, "request.answers must be a list of strings");
  refused(json{{"item", "room"}, {"answer", "x"}, {"answers", {1}}}, "request.answers must be a list of strings");
}

}  // namespace task_set_environment_test
}  // namespace kaisha::hiva
