// An agent's quality score (infiagent.md §3.6.1 Eq. 5, §10 item 30):
// Q ← α·Q + (1−α)·v after each audited output, v = 1 for a judge success and
// 0 for an error. With α = 0.8 and Q0 = 0.5, verdicts [1, 0, 1] give
// 0.6, 0.48, 0.584. The score stays in [0, 1] when v does.
#pragma once

#include "runtime/core/result.hpp"

namespace kaisha::planning {

class QualityScore {
 public:
  static constexpr double kDefaultAlpha = 0.8;
  static constexpr double kDefaultInitial = 0.5;

  // Error (code "config") unless alpha and initial are both in [0, 1].
  static Result<QualityScore> create(double alpha = kDefaultAlpha, double initial = kDefaultInitial);
  QualityScore() = default;  // α = 0.8, Q0 = 0.5

  // Applies one validation value, clamped to [0, 1]; returns the new score.
  double update(double v);
  double update(bool success) { return update(success ? 1.0 : 0.0); }

  double value() const { return q_; }
  double alpha() const { return alpha_; }
  int updates() const { return updates_; }

 private:
  QualityScore(double alpha, double initial) : alpha_(alpha), q_(initial) {}

  double alpha_ = kDefaultAlpha;
  double q_ = kDefaultInitial;
  int updates_ = 0;
};

}  // namespace kaisha::planning
