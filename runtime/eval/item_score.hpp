// Whether one answer to one suite item is right, by the item's format
// (docs/suites.md): the answer matchers for exact, numeric,
// multiple_choice, latex and f1 (HiVA's environment check, so both judge
// alike), the item's unit tests in the sandbox for code.
#pragma once

#include <optional>
#include <string>

#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::eval {

struct ItemScore {
  std::optional<bool> correct;  // unset: no verdict (broken tests, an item eval cannot judge)
  std::optional<double> score;  // graded, in [0, 1]: token F1, the share of tests passed
  std::string feedback;         // what the check said, never empty
};

// Whether `kaisha eval` can score items of this item's format: every format
// but interactive (an episode, not one answer) and none.
bool eval_can_score(const suite::SuiteItem& item);

// Scores `answer` by the matchers; the reference may be quoted in the
// feedback. For a code item nothing runs: the verdict is unset and the
// feedback says to use score_code_item.
ItemScore score_item(const suite::SuiteItem& item, const std::string& answer);

// Scores a code item by running its tests on the program in `answer` in the
// sandbox, within `limits`. Blocking (up to the limits' wall clock): call it
// from a thread of its own, never from an actor. Errors: the sandbox could
// not run the tests at all (sandbox_unavailable, io, ...): no verdict on
// the answer.
Result<ItemScore> score_code_item(const suite::SuiteItem& item, const std::string& answer,
                                  const sandbox::SandboxLimits& limits, const std::string& scratch_dir = "");

}  // namespace kaisha::eval
