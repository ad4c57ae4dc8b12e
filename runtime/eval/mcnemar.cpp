#include "runtime/eval/mcnemar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kaisha::eval {

namespace {

// P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so that large n
// neither overflows nor underflows the binomial coefficients.
double binomial_half_cdf(int k, int n) {
  double sum = 0;
  for (int i = 0; i <= k; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::min(1.0, sum);
}

}  // namespace

McNemar mcnemar(int b, int c) {
  McNemar m;
  m.b = std::max(0, b);
  m.c = std::max(0, c);
  const int n = m.b + m.c;
  if (n == 0) return m;
  m.exact_p = std::min(1.0, 2 * binomial_half_cdf(std::min(m.b, m.c), n));
  const double d = std::max(0.0, std::abs(m.b - m.c) - 1.0);
  m.chi2 = d * d / n;
  // The chi-squared distribution with one degree of freedom is that of a
  // squared standard normal: P(X > x) = erfc(sqrt(x / 2)).
  m.chi2_p = std::erfc(std::sqrt(m.chi2 / 2));
  return m;
}

McNemar mcnemar_paired(const std::vector<bool>& candidate, const std::vector<bool>& baseline) {
  int b = 0, c = 0;
  const size_t n = std::min(candidate.size(), baseline.size());
  for (size_t i = 0; i < n; ++i) {
    b += candidate[i] && !baseline[i];
    c += !candidate[i] && baseline[i];
  }
  return mcnemar(b, c);
}

}  // namespace kaisha::eval
