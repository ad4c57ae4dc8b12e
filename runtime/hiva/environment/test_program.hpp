// The Python program that checks a candidate program against a task's unit
// tests (format "code", docs/suites.md): build_test_program writes it, the
// sandbox runs it (unit_test_run.hpp), read_test_run (test_run_reading.hpp)
// reads what it printed. The program is self-contained: candidate and tests
// travel inside it as string literals, so it can also be saved and run by
// hand with python3.
//
// What it does:
//   1. compiles and runs the candidate as the module "program" (so its
//      `if __name__ == "__main__":` block does not run); its prints are kept
//      aside, at most 2,000 characters, never mixed with the report;
//   2. runs the tests in the candidate's namespace, top-level statements in
//      order: each top-level `assert` is one test; other statements (imports,
//      helpers) are set-up, and one that raises stops the run;
//   3. then calls each top-level function named test*, runs each test method
//      of each unittest.TestCase class the tests define, and, when the tests
//      define check(candidate) (HumanEval's form), calls check(<entry_point>);
//      with an entry point the tests do not call, only that the program
//      defines it is checked.
// Every test that raises fails (SystemExit included); the rest of the tests
// still run. A failed bare `assert a == b` also says what `a` was.
//
// Its output, on stdout, is lines starting with kTestLinePrefix followed by
// one JSON object each:
//   {"event": "start", "test": "<test>"}        before each test (and before
//                                               the program runs), so a run
//                                               killed by its clock says
//                                               which test hung;
//   {"event": "result", "passed": P, "failed": F,
//    "failures": [{"test", "message", "traceback" (first only)}] (first 5),
//    "error": {"stage": "program" | "tests" | "harness", "message",
//              "traceback", "blame": "task" when the task's tests are at
//              fault (a syntax error, no test at all, check() without an
//              entry point)},               (only when the run stopped early)
//    "output": "<what the program printed>"}    last, always, unless the
//                                               process dies first.
// Messages and tracebacks are cut to their last 1,500 characters.
//
// Not a security boundary: the candidate runs in the same interpreter and
// could print a forged result line; the sandbox protects the host, not the
// verdict.
#pragma once

#include <string>
#include <string_view>

namespace kaisha::hiva {

inline constexpr std::string_view kTestLinePrefix = "KAISHA_TEST ";

// The Python source described above. Text that is not valid UTF-8 has its
// ill-formed sequences replaced with U+FFFD first.
std::string build_test_program(std::string_view program, std::string_view tests, std::string_view entry_point);

}  // namespace kaisha::hiva
