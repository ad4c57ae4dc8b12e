#include "runtime/eval/wilson_interval.hpp"

#include <algorithm>
#include <cmath>

namespace kaisha::eval {

Interval wilson_interval(int successes, int n, double z) {
  if (n <= 0) return {0, 1};
  const double nn = n;
  const double p = std::clamp(successes / nn, 0.0, 1.0);
  const double z2 = z * z;
  const double denom = 1 + z2 / nn;
  const double centre = (p + z2 / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  // 0/n and n/n reach 0 and 1 exactly; rounding must not move them.
  return {successes <= 0 ? 0.0 : std::max(0.0, centre - half), successes >= n ? 1.0 : std::min(1.0, centre + half)};
}

}  // namespace kaisha::eval
