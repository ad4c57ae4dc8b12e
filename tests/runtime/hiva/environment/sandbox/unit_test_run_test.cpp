// HiVA's programmatic environment for real: test programs run under python3
// in the sandbox, and what each kind of failure comes back as.
#include "runtime/hiva/environment/sandbox/unit_test_run.hpp"

#include <gtest/gtest.h>

#include "runtime/hiva/environment/test_program.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/suite/suite_file.hpp"

namespace kaisha::hiva {
namespace unit_test_run_test {

// Generous for a loaded machine; the timeout test uses its own clock.
sandbox::SandboxLimits limits(int64_t wall_ms = 30000) {
  sandbox::SandboxLimits l;
  l.cpu_seconds = 30;
  l.memory_bytes = 256ll << 20;
  l.max_processes = 16;
  l.wall_timeout_ms = wall_ms;
  return l;
}

class UnitTestRun : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = sandbox::sandbox_available();
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }

  EnvironmentFeedback run(const std::string& program, const std::string& tests, const std::string& entry_point = "",
                          const sandbox::SandboxLimits& l = limits()) {
    auto r = run_unit_tests(build_test_program(program, tests, entry_point), l);
    EXPECT_TRUE(r.ok()) << r.error().code << ": " << r.error().message;
    return r ? r.value() : EnvironmentFeedback{};
  }
};

const char* kAddTests = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\n";

TEST_F(UnitTestRun, ACorrectProgramPasses) {
  auto f = run("def add(a, b):\n    return a + b\n", kAddTests);
  EXPECT_EQ(f.text, "All 2 tests passed.");
  EXPECT_EQ(f.success, true);
  EXPECT_EQ(f.score, 1.0);
}

TEST_F(UnitTestRun, AWrongProgramFailsWithTheFailingTestsText) {
  auto f = run("def add(a, b):\n    return a - b\n", kAddTests);
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.score, 0.0);
  EXPECT_EQ(f.text.rfind("2 of 2 tests failed.\nFailed: assert add(2, 3) == 5\n"
                         "    AssertionError: the left side was -1\n",
                         0),
            0u)
      << f.text;
  EXPECT_NE(f.text.find("File \"tests.py\", line 1"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("Failed: assert add(-1, 1) == 0\n    AssertionError: the left side was -2"), std::string::npos)
      << f.text;
}

TEST_F(UnitTestRun, AnInfiniteLoopRunsOutOfTheClock) {
  auto f = run("def spin():\n    while True:\n        pass\n", "assert spin() == 1\n", "", limits(5000));
  EXPECT_EQ(f.text, "The program did not finish within 5 s. It was still running the test: assert spin() == 1");
  EXPECT_EQ(f.success, false);
}

TEST_F(UnitTestRun, AMissingImportFailsBeforeTheTests) {
  auto f = run("import numpy_that_is_not_here\n\ndef add(a, b):\n    return a + b\n", kAddTests);
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.text.rfind("The program failed before any test ran: ModuleNotFoundError: No module named "
                         "'numpy_that_is_not_here'\n",
                         0),
            0u)
      << f.text;
  EXPECT_NE(f.text.find("File \"program.py\", line 1, in <module>"), std::string::npos) << f.text;
}

TEST_F(UnitTestRun, ASyntaxErrorNamesItsLine) {
  auto f = run("def add(a, b)\n    return a + b\n", kAddTests);
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.text.rfind("The program failed before any test ran: SyntaxError: line 1: expected ':'", 0), 0u) << f.text;
}

TEST_F(UnitTestRun, RunsHumanEvalsCheckOnTheEntryPointOfAFencedAnswer) {
  suite::SuiteItem item;
  item.id = "he";
  item.input = "Write is_palindrome(s).";
  item.format = "code";
  item.entry_point = "is_palindrome";
  item.tests =
      "def check(candidate):\n    assert candidate('Level') is True\n    assert candidate('kaisha') is False\n";
  std::string right =
      "Here is my solution:\n```python\ndef is_palindrome(s):\n    s = s.lower()\n    return s == s[::-1]\n```\n";
  auto ok = run_item_tests(item, right, limits());
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->text, "All 1 tests passed.");
  std::string wrong = "```python\ndef is_palindrome(s):\n    return s == s[::-1]\n```";
  auto bad = run_item_tests(item, wrong, limits());
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->success, false);
  EXPECT_NE(bad->text.find("Failed: check(is_palindrome)"), std::string::npos) << bad->text;
  EXPECT_NE(bad->text.find("assert candidate('Level') is True"), std::string::npos) << bad->text;
  auto misnamed = run_item_tests(item, "def palindrome(s):\n    return True\n", limits());
  ASSERT_TRUE(misnamed.ok());
  EXPECT_NE(misnamed->text.find("the program defines no is_palindrome"), std::string::npos) << misnamed->text;
}

TEST_F(UnitTestRun, CountsTestFunctionsAndTestCaseMethods) {
  std::string tests =
      "import unittest\n"
      "def test_one():\n    assert double(2) == 4\n"
      "class Doubling(unittest.TestCase):\n"
      "    def test_zero(self):\n        self.assertEqual(double(0), 0)\n"
      "    def test_three(self):\n        self.assertEqual(double(3), 7)\n";
  auto f = run("def double(x):\n    return 2 * x\n", tests);
  EXPECT_EQ(f.success, false);
  EXPECT_DOUBLE_EQ(*f.score, 2.0 / 3.0);
  EXPECT_EQ(f.text.rfind("1 of 3 tests failed.\nFailed: Doubling.test_three\n    AssertionError: 6 != 7", 0), 0u)
      << f.text;
}

TEST_F(UnitTestRun, ExitsHugeOutputAndLeftoverThreadsDoNotHideTheReport) {
  std::string program =
      "import sys, threading, time\n"
      "print('x' * 3000000)\n"  // beyond the sandbox's 1 MiB output limit if it reached stdout
      "threading.Thread(target=lambda: time.sleep(3600)).start()\n"
      "def quit_now():\n    sys.exit(0)\n";
  auto f = run(program, "assert quit_now() is None\nassert True\n");
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.text.rfind("1 of 2 tests failed.\nFailed: assert quit_now() is None\n    SystemExit: 0", 0), 0u)
      << f.text;
  EXPECT_NE(f.text.find("The program printed:\n    xxxx"), std::string::npos);
}

TEST_F(UnitTestRun, TestsWithoutATestAreNotTheAnswersFault) {
  auto f = run("x = 1\n", "import math\n");
  EXPECT_FALSE(f.success.has_value());
  EXPECT_EQ(f.text,
            "The tests could not run: the tests hold no test: no top-level assert, no test function, no "
            "unittest.TestCase and no check(candidate)");
}

TEST_F(UnitTestRun, AProgramThatKillsTheInterpreterLeavesNoReport) {
  auto f = run("import os\nos._exit(3)\n", kAddTests);
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.text,
            "The test program exited with status 3 before reporting its results. It was still running the program "
            "itself, before any test.");
}

TEST_F(UnitTestRun, TheExampleCodeSuitesReferenceSolutionsPass) {
  auto suite = suite::load_suite_file(std::string(KAISHA_SOURCE_DIR) + "/examples/suites/code.jsonl");
  ASSERT_TRUE(suite.ok()) << suite.error().message;
  for (const suite::SuiteItem& item : suite.value()) {
    ASSERT_TRUE(item.answer) << item.id;
    auto f = run_item_tests(item, *item.answer, limits());
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->success, true) << item.id << ": " << f->text;
  }
}

}  // namespace unit_test_run_test
}  // namespace kaisha::hiva
