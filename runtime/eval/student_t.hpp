// Student's t distribution and the paired t-test the papers use to compare
// accuracies over repeated runs, with the regularized incomplete beta
// function they rest on.
#pragma once

#include <vector>

namespace kaisha::eval {

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in
// [0, 1] (clamped); accurate to about 1e-14. Evaluated by its continued
// fraction (Abramowitz & Stegun 26.5.8), on I_x(a, b) = 1 - I_{1-x}(b, a)
// where that converges faster.
double regularized_incomplete_beta(double a, double b, double x);

// P(T <= t) for T ~ Student's t with `df` > 0 degrees of freedom:
// 1 - I_{df/(df+t²)}(df/2, 1/2) / 2 for t >= 0, symmetric below.
double student_t_cdf(double t, double df);

struct PairedT {
  int n = 0;           // pairs
  double mean = 0;     // mean difference (candidate - baseline)
  double t = 0;        // mean / (sd / sqrt(n)); ±infinity when every difference is the same non-zero value
  int df = 0;          // n - 1
  double p = 1;        // two-sided
  bool valid = false;  // false when n < 2: nothing can be said
};

// The paired t-test of `candidate` against `baseline`, pair i being run i of
// each (per-run accuracies, say). Pairs beyond the shorter list are ignored.
// All differences equal: t is 0 and p is 1 when they are 0, else t is
// ±infinity and p is 0.
PairedT paired_t_test(const std::vector<double>& candidate, const std::vector<double>& baseline);

}  // namespace kaisha::eval
