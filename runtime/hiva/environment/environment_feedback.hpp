// What HiVA's environment says about one answer (hiva.md §2, §7.1, §14 item
// 11): text for the textual loss, and a verdict when the environment has
// one. Every kind of environment (unit tests, a data metric, a maths
// checker, a scripted interactive episode) answers with this.
#pragma once

#include <optional>
#include <string>

namespace kaisha::hiva {

struct EnvironmentFeedback {
  // What was right or wrong, in words a model can act on; never empty.
  std::string text;
  // The binary outcome: set whenever the environment could judge; unset
  // when it could not (a task without a reference, broken tests, an
  // episode still running).
  std::optional<bool> success;
  // A graded outcome in [0, 1] when there is one: 1 or 0 for exact checks,
  // the token F1, the fraction of tests passed.
  std::optional<double> score;
};

}  // namespace kaisha::hiva
