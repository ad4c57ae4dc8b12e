// One answer to one task-set item judged by the item's format
// (docs/suites.md): its unit tests in the sandbox (code), a scripted episode
// from its first turn (interactive), the answer matchers (the rest). HiVA's
// environment and `kaisha eval` both judge through it, so they judge alike.
//
// Blocking for a code item (up to the limits' wall clock): call it from a
// thread of its own, never from an actor's.
#pragma once

#include <string>

#include "runtime/core/result.hpp"
#include "runtime/hiva/environment/answer_check.hpp"
#include "runtime/hiva/environment/environment_feedback.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::hiva {

// `options` decide what the matchers' text discloses (answer_check.hpp);
// `limits` and `scratch_dir` are the sandbox's, for code items.
// Errors: the sandbox could not run a code item's tests, or an interactive
// item's script is broken: the item could not be judged, which is not a
// wrong answer.
Result<EnvironmentFeedback> judge_item(const suite::SuiteItem& item, const std::string& answer,
                                       const sandbox::SandboxLimits& limits, const CheckOptions& options = {},
                                       const std::string& scratch_dir = "");

}  // namespace kaisha::hiva
