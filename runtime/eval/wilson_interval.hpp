// The Wilson score interval for a proportion (Wilson 1927): how far an
// accuracy measured on n items can be trusted. Unlike the normal
// approximation it stays inside [0, 1] and is not empty at 0/n or n/n.
#pragma once

namespace kaisha::eval {

struct Interval {
  double low = 0;
  double high = 1;
};

// z of the two-sided 95 % interval (the standard normal's 0.975 quantile).
inline constexpr double kZ95 = 1.959963984540054;

// The interval for `successes` out of `n` (0 <= successes <= n), with
//   centre = (p + z²/2n) / (1 + z²/n)
//   half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²),  p = successes / n.
// n = 0 says nothing: [0, 1].
Interval wilson_interval(int successes, int n, double z = kZ95);

}  // namespace kaisha::eval
