#include "runtime/eval/student_t.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kaisha::eval {

namespace {

// The continued fraction of I_x(a, b) (without its prefactor), evaluated by
// the modified Lentz method. Converges quickly for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double f = d;
  for (int m = 1; m <= 1000; ++m) {
    // The even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    f *= d * c;
    // The odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    f *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return f;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  x = std::clamp(x, 0.0, 1.0);
  if (x == 0.0 || x == 1.0) return x;
  // x^a (1-x)^b / B(a, b), in logs.
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

PairedT paired_t_test(const std::vector<double>& candidate, const std::vector<double>& baseline) {
  PairedT r;
  const size_t n = std::min(candidate.size(), baseline.size());
  r.n = static_cast<int>(n);
  if (n == 0) return r;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += candidate[i] - baseline[i];
  r.mean = sum / n;
  if (n < 2) return r;
  r.valid = true;
  r.df = r.n - 1;
  double squares = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = candidate[i] - baseline[i] - r.mean;
    squares += e * e;
  }
  const double sd = std::sqrt(squares / r.df);
  if (sd == 0) {
    r.t = r.mean == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), r.mean);
    r.p = r.mean == 0 ? 1.0 : 0.0;
    return r;
  }
  r.t = r.mean / (sd / std::sqrt(static_cast<double>(n)));
  // Two-sided: P(|T| >= |t|) = I_{df/(df+t²)}(df/2, 1/2).
  r.p = regularized_incomplete_beta(r.df / 2.0, 0.5, r.df / (r.df + r.t * r.t));
  return r;
}

}  // namespace kaisha::eval
