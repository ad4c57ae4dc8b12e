// McNemar's test: did a strategy get different items right than its
// baseline did, on the same items? Only the discordant pairs count:
//   b = items the candidate got right and the baseline wrong,
//   c = items the candidate got wrong and the baseline right.
// Under the null hypothesis each discordant pair goes either way with
// probability 1/2.
#pragma once

#include <vector>

namespace kaisha::eval {

struct McNemar {
  int b = 0;  // candidate right, baseline wrong
  int c = 0;  // candidate wrong, baseline right
  // The exact (binomial) test, two-sided: 2 P(X <= min(b, c)) with X ~
  // Binomial(b + c, 1/2), at most 1. Prefer it when b + c is small (< 25).
  double exact_p = 1;
  // The chi-squared statistic with Edwards' continuity correction,
  // max(0, |b - c| - 1)² / (b + c) (0 when b + c = 0), and its p-value on
  // one degree of freedom.
  double chi2 = 0;
  double chi2_p = 1;
};

// The test for b and c counted by the caller (both >= 0).
McNemar mcnemar(int b, int c);

// The test for two verdicts per item, in the same item order: `candidate[i]`
// and `baseline[i]` are whether each got item i right. Pairs beyond the
// shorter list are ignored.
McNemar mcnemar_paired(const std::vector<bool>& candidate, const std::vector<bool>& baseline);

}  // namespace kaisha::eval
