// The environment for tasks with a reference answer (hiva.md §2 (b) and (d)):
// a data metric for QA (exact, multiple_choice, f1) and a maths checker
// (numeric, latex), with the matchers of runtime/answers.
//
// What the text discloses: a data metric says what was expected and what was
// given; a maths checker says only right or wrong and what it read from the
// answer, never the reference (hiva.md §10 item 9: the hint beyond that is a
// model's job, made by the caller). CheckOptions can override either way.
#pragma once

#include <optional>
#include <string>

#include "runtime/hiva/environment/environment_feedback.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::hiva {

struct CheckOptions {
  // Unset: by format (exact, multiple_choice and f1 reveal the reference;
  // numeric and latex do not).
  std::optional<bool> reveal_reference;
};

// success and score for each format:
//   exact            trimmed byte equality; score 1 or 0
//   numeric          answers::numeric_match with the item's tolerance
//   multiple_choice  answers::choice_match
//   latex            answers::latex_equivalence
//   f1               success: answers::normalized_exact_match; score: token F1
// For code, interactive and items without a format, success and score stay
// unset and the text says why (code is judged by running its tests,
// interactive by its ScriptedEnvironment). The text quotes at most a few
// hundred bytes of the answer.
EnvironmentFeedback check_answer(const suite::SuiteItem& item, const std::string& answer,
                                 const CheckOptions& options = {});

}  // namespace kaisha::hiva
