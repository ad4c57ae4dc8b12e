// Running a task's unit tests for real (HiVA's programmatic environment,
// hiva.md §2 (a), §14 item 11): the test program (test_program.hpp) runs
// under python3 in the sandbox (runtime/sandbox/sandbox.hpp: no network, a
// private workspace, the given limits) and its run is read by
// read_test_run.
//
// Blocking, for a tools thread: it waits for the child process up to the
// limits' wall clock. Never call it on an actor's thread.
#pragma once

#include <string>

#include "runtime/core/result.hpp"
#include "runtime/hiva/environment/environment_feedback.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::hiva {

// Runs `program_source` (a whole Python program, as build_test_program
// writes it) with `python3 -I -B -` reading it from stdin, in a fresh
// workspace made under `scratch_dir` (default: the system's temporary
// directory) and removed afterwards. The verdict is read_test_run's: a
// program that fails, hangs or goes over a limit is feedback, not an Error.
// Errors: the sandbox's own ("sandbox_unavailable", "sandbox_setup", ...,
// sandbox.hpp) and "io" when the workspace cannot be made; the environment
// could not judge, so the caller must not count them as a failed answer.
Result<EnvironmentFeedback> run_unit_tests(const std::string& program_source, const sandbox::SandboxLimits& limits,
                                           const std::string& scratch_dir = "");

// The whole programmatic environment for one answer to a code task: the
// program out of the answer (extract_program), the item's tests around it
// (build_test_program), run as above.
Result<EnvironmentFeedback> run_item_tests(const suite::SuiteItem& item, const std::string& answer,
                                           const sandbox::SandboxLimits& limits, const std::string& scratch_dir = "");

}  // namespace kaisha::hiva
