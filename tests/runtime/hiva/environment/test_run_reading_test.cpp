// read_test_run on canned output of the test program (its real output is
// tested in sandbox/unit_test_run_test.cpp).
#include "runtime/hiva/environment/test_run_reading.hpp"

#include <gtest/gtest.h>

#include "runtime/core/json.hpp"
#include "runtime/hiva/environment/test_program.hpp"

namespace kaisha::hiva {
namespace test_run_reading_test {

std::string line(const json& v) { return std::string(kTestLinePrefix) + v.dump() + "\n"; }
std::string start(const std::string& test) { return line({{"event", "start"}, {"test", test}}); }

TestRun ran(std::string out) {
  TestRun r;
  r.stdout_data = std::move(out);
  r.wall_timeout_ms = 2000;
  return r;
}

TEST(ReadTestRun, AllPassed) {
  auto f = read_test_run(ran(start("a") + line({{"event", "result"}, {"passed", 3}, {"failed", 0}, {"output", ""}})));
  EXPECT_EQ(f.text, "All 3 tests passed.");
  EXPECT_EQ(f.success, true);
  EXPECT_EQ(f.score, 1.0);
}

TEST(ReadTestRun, ListsEachFailureWithItsMessageAndTheFirstTraceback) {
  json result = {{"event", "result"},
                 {"passed", 1},
                 {"failed", 3},
                 {"failures",
                  {{{"test", "assert add(2, 3) == 5"},
                    {"message", "AssertionError: the left side was -1"},
                    {"traceback", "Traceback (most recent call last):\n  File \"tests.py\", line 1\nAssertionError"}},
                   {{"test", "test_b()"}, {"message", "ZeroDivisionError: division by zero"}}}},
                 {"output", "debug 1\n"}};
  auto f = read_test_run(ran("noise the program printed\n" + line(result)));
  EXPECT_EQ(f.text,
            "3 of 4 tests failed.\n"
            "Failed: assert add(2, 3) == 5\n"
            "    AssertionError: the left side was -1\n"
            "    Traceback (most recent call last):\n"
            "      File \"tests.py\", line 1\n"
            "    AssertionError\n"
            "Failed: test_b()\n"
            "    ZeroDivisionError: division by zero\n"
            "(1 more failed)\n"
            "The program printed:\n"
            "    debug 1");
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.score, 0.25);
}

TEST(ReadTestRun, AProgramThatFailedBeforeTheTests) {
  json error = {
      {"stage", "program"},
      {"message", "SyntaxError: line 1: invalid syntax"},
      {"traceback", "  File \"program.py\", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n"}};
  auto f = read_test_run(
      ran(start("(the program itself)") + line({{"event", "result"}, {"passed", 0}, {"failed", 0}, {"error", error}})));
  EXPECT_EQ(f.text,
            "The program failed before any test ran: SyntaxError: line 1: invalid syntax\n"
            "      File \"program.py\", line 1\n"
            "        def f(:\n"
            "              ^\n"
            "    SyntaxError: invalid syntax");
  EXPECT_EQ(f.success, false);
  EXPECT_EQ(f.score, 0.0);
}

TEST(ReadTestRun, BrokenTestsAreNotTheAnswersFailure) {
  json error = {{"stage", "tests"}, {"blame", "task"}, {"message", "the tests hold no test"}};
  auto f = read_test_run(ran(line({{"event", "result"}, {"passed", 0}, {"failed", 0}, {"error", error}})));
  EXPECT_EQ(f.text, "The tests could not run: the tests hold no test");
  EXPECT_FALSE(f.success.has_value());
  EXPECT_FALSE(f.score.has_value());
  // A set-up statement that raised may be the program's fault: a failure.
  json setup = {{"stage", "tests"}, {"message", "line 2: NameError: name 'helper' is not defined"}};
  auto g = read_test_run(ran(line({{"event", "result"}, {"passed", 0}, {"failed", 0}, {"error", setup}})));
  EXPECT_EQ(g.text, "The tests could not run: line 2: NameError: name 'helper' is not defined");
  EXPECT_EQ(g.success, false);
}

TEST(ReadTestRun, ATimeoutNamesTheClockAndTheTestThatHung) {
  TestRun r = ran(start("(the program itself)") + start("assert f(10) == 3"));
  r.timed_out = true;
  r.exit_code = 137;
  r.signal = 9;
  auto f = read_test_run(r);
  EXPECT_EQ(f.text, "The program did not finish within 2 s. It was still running the test: assert f(10) == 3");
  EXPECT_EQ(f.success, false);
  r.stdout_data = start("(the program itself)");
  r.wall_timeout_ms = 1500;
  EXPECT_EQ(read_test_run(r).text,
            "The program did not finish within 1.5 s. It was still running the program itself, before any test.");
}

TEST(ReadTestRun, ALimitThatStoppedTheRun) {
  TestRun r = ran(start("test_big()"));
  r.stopped_by = "memory limit of 268435456 bytes exceeded (cgroup v2)";
  EXPECT_EQ(read_test_run(r).text,
            "The program was stopped: memory limit of 268435456 bytes exceeded (cgroup v2). It was still running the "
            "test: test_big()");
}

TEST(ReadTestRun, NoReportAtAll) {
  TestRun r = ran("garbage\nKAISHA_TEST {not json\n");
  r.exit_code = 1;
  r.stderr_data = "Traceback...\nMemoryError\n";
  auto f = read_test_run(r);
  EXPECT_EQ(f.text,
            "The test program exited with status 1 before reporting its results.\n"
            "Its error output ends with:\n"
            "    Traceback...\n"
            "    MemoryError");
  EXPECT_EQ(f.success, false);
}

TEST(ReadTestRun, MistypedReportFieldsDoNotThrow) {
  auto f = read_test_run(ran(line({{"event", "result"}, {"passed", "3"}, {"failed", -2}, {"failures", 7}})));
  EXPECT_EQ(f.text, "No test ran.");
  EXPECT_FALSE(f.success.has_value());
}

TEST(ReadTestRun, CutsLongFeedback) {
  json result = {{"event", "result"},
                 {"passed", 0},
                 {"failed", 1},
                 {"failures", {{{"test", "t"}, {"message", std::string(20000, 'x')}}}}};
  auto f = read_test_run(ran(line(result)));
  EXPECT_LE(f.text.size(), kMaxFeedbackBytes + 3);  // + the ellipsis
  EXPECT_EQ(f.text.substr(f.text.size() - 3), "\xE2\x80\xA6");
}

}  // namespace test_run_reading_test
}  // namespace kaisha::hiva
