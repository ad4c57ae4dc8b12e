// Reading the run of a test program (test_program.hpp) into the
// environment's verdict: which tests failed and why, a syntax error, an
// import that failed, a run that did not finish. Pure: the run itself is
// unit_test_run.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/hiva/environment/environment_feedback.hpp"

namespace kaisha::hiva {

// How the sandboxed run of the test program ended.
struct TestRun {
  int exit_code = 0;
  int signal = 0;  // set when the process died of a signal
  std::string stdout_data, stderr_data;
  bool timed_out = false;
  int64_t wall_timeout_ms = 0;            // the clock it ran out of, for the message
  std::optional<std::string> stopped_by;  // a whole-run limit that stopped it (memory, processes, disk)
};

inline constexpr size_t kMaxFeedbackBytes = 6000;

// success: true when every test passed; false when a test failed, the
// program did not compile, raised before the tests, hung or was stopped;
// unset when the task's own tests are at fault (they do not parse, hold no
// test, call check() without an entry point) or the harness failed.
// score: the fraction of tests passed (0 when none ran). The text says all
// of it, cut to kMaxFeedbackBytes at a character boundary.
EnvironmentFeedback read_test_run(const TestRun& run);

}  // namespace kaisha::hiva
