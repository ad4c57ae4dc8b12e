#include "runtime/judge/quality_score.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace kaisha::planning {

Result<QualityScore> QualityScore::create(double alpha, double initial) {
  if (!(alpha >= 0.0 && alpha <= 1.0))
    return Error{"config", "quality score alpha must be in [0, 1], got " + std::to_string(alpha)};
  if (!(initial >= 0.0 && initial <= 1.0))
    return Error{"config", "initial quality score must be in [0, 1], got " + std::to_string(initial)};
  return QualityScore(alpha, initial);
}

double QualityScore::update(double v) {
  v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);  // NaN would poison Q forever
  q_ = alpha_ * q_ + (1.0 - alpha_) * v;
  ++updates_;
  return q_;
}

}  // namespace kaisha::planning
