// One judge for every format: the item's format picks the check, and what it
// could not judge is an error, never a wrong answer.
#include "runtime/hiva/environment/sandbox/item_judge.hpp"

#include <gtest/gtest.h>

#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {
namespace item_judge_test {

sandbox::SandboxLimits limits() {
  sandbox::SandboxLimits l;
  l.cpu_seconds = 30;
  l.memory_bytes = 256ll << 20;
  l.max_processes = 16;
  l.wall_timeout_ms = 30000;  // generous for a loaded machine
  return l;
}

suite::SuiteItem item(const std::string& format) {
  suite::SuiteItem i;
  i.id = "t1";
  i.input = "問題";
  i.format = format;
  return i;
}

TEST(ItemJudge, AnswerFormatsGoToTheMatchersAndTheOptionsDecideWhatIsShown) {
  suite::SuiteItem exact = item("exact");
  exact.answer = "東京";
  auto right = judge_item(exact, " 東京\n", limits());
  ASSERT_TRUE(right.ok()) << right.error().message;
  EXPECT_EQ(right->success, true);
  auto wrong = judge_item(exact, "大阪", limits(), CheckOptions{false});
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(wrong->success, false);
  EXPECT_EQ(wrong->text.find("東京"), std::string::npos) << wrong->text;
  auto shown = judge_item(exact, "大阪", limits(), CheckOptions{true});
  EXPECT_NE(shown->text.find("東京"), std::string::npos) << shown->text;
}

TEST(ItemJudge, AnInteractiveItemIsJudgedFromItsFirstTurnAndABrokenScriptIsAnError) {
  suite::SuiteItem room = item("interactive");
  room.turns = json::parse(R"J([{"expect": "open the door", "reply": "You are out.", "success": true}])J");
  auto out = judge_item(room, "I open the door 🚪", limits());
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->text, "You are out.");
  EXPECT_EQ(out->success, true);
  room.turns = json::parse(R"J([{"expect": "x"}])J");
  auto broken = judge_item(room, "x", limits());
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("\"reply\" is missing"), std::string::npos) << broken.error().message;
}

TEST(ItemJudge, ACodeItemRunsItsTestsInTheSandbox) {
  if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  suite::SuiteItem code = item("code");
  code.tests = "assert add(2, 3) == 5\n";
  code.entry_point = "add";
  auto pass = judge_item(code, "```python\ndef add(a, b):\n    return a + b\n```", limits());
  ASSERT_TRUE(pass.ok()) << pass.error().message;
  EXPECT_EQ(pass->success, true);
  auto fail = judge_item(code, "def add(a, b):\n    return a * b\n", limits());
  ASSERT_TRUE(fail.ok()) << fail.error().message;
  EXPECT_EQ(fail->success, false);
  EXPECT_NE(fail->text.find("assert add(2, 3) == 5"), std::string::npos) << fail->text;
}

TEST(ItemJudge, ACodeItemTheSandboxCannotRunIsAnErrorThatSaysSo) {
  suite::SuiteItem code = item("code");
  code.tests = "assert True\n";
  sandbox::SandboxLimits l = limits();
  // A scratch directory that cannot exist: the tests never run.
  auto r = judge_item(code, "x = 1\n", l, {}, "/proc/no-such-dir/kaisha");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("the sandbox could not run the tests: ", 0), 0u) << r.error().message;
}

}  // namespace item_judge_test
}  // namespace kaisha::hiva
