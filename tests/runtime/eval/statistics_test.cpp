// Golden values computed with exact formulas (Python's fractions and math,
// mpmath's betainc at 30 digits), and textbook quantiles.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/eval/mcnemar.hpp"
#include "runtime/eval/run_summary.hpp"
#include "runtime/eval/student_t.hpp"
#include "runtime/eval/wilson_interval.hpp"

namespace kaisha::eval {
namespace statistics_test {

TEST(WilsonInterval, MatchesTheClosedForm) {
  Interval i = wilson_interval(3, 4);
  EXPECT_NEAR(i.low, 0.300641842582402, 1e-12);
  EXPECT_NEAR(i.high, 0.954412739190299, 1e-12);
  i = wilson_interval(81, 263);
  EXPECT_NEAR(i.low, 0.255288519878274, 1e-12);
  EXPECT_NEAR(i.high, 0.366209576982800, 1e-12);
}

TEST(WilsonInterval, StaysInsideZeroAndOneAtTheEdges) {
  Interval none = wilson_interval(0, 10);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 0.277532799862889, 1e-12);
  Interval all = wilson_interval(10, 10);
  EXPECT_NEAR(all.low, 0.722467200137111, 1e-12);
  EXPECT_EQ(all.high, 1.0);
  Interval one = wilson_interval(1, 1);
  EXPECT_NEAR(one.low, 0.206549314377237, 1e-12);
  Interval empty = wilson_interval(0, 0);
  EXPECT_EQ(empty.low, 0.0);
  EXPECT_EQ(empty.high, 1.0);
}

TEST(McNemar, ExactTestIsTwiceTheBinomialTail) {
  // b = 10, c = 3: 2 (C(13,0) + C(13,1) + C(13,2) + C(13,3)) / 2^13 = 2 * 378 / 8192.
  McNemar m = mcnemar(10, 3);
  EXPECT_NEAR(m.exact_p, 0.09228515625, 1e-14);
  EXPECT_NEAR(m.chi2, 36.0 / 13.0, 1e-12);
  EXPECT_NEAR(m.chi2_p, 0.0960923294556733, 1e-12);
  // Symmetric in which side is better.
  EXPECT_DOUBLE_EQ(mcnemar(3, 10).exact_p, m.exact_p);
}

TEST(McNemar, ChiSquaredWithContinuityCorrectionOnALargeTable) {
  // Agresti's presidential approval table: b = 150, c = 86, (64 - 1)² / 236.
  McNemar m = mcnemar(150, 86);
  EXPECT_NEAR(m.chi2, 16.8177966101695, 1e-10);
  EXPECT_NEAR(m.chi2_p, 4.11456228134595e-05, 1e-15);
  EXPECT_NEAR(m.exact_p, 3.715936139571442e-05, 1e-15);
}

TEST(McNemar, NoDiscordantPairsOrABalancedTableSaysNothing) {
  McNemar none = mcnemar(0, 0);
  EXPECT_EQ(none.exact_p, 1.0);
  EXPECT_EQ(none.chi2_p, 1.0);
  McNemar even = mcnemar(5, 5);
  EXPECT_EQ(even.exact_p, 1.0);
  EXPECT_EQ(even.chi2, 0.0);
  EXPECT_EQ(even.chi2_p, 1.0);
  McNemar one = mcnemar(1, 0);  // the correction keeps a single pair from looking significant
  EXPECT_EQ(one.exact_p, 1.0);
  EXPECT_EQ(one.chi2, 0.0);
  McNemar four = mcnemar(0, 4);
  EXPECT_NEAR(four.exact_p, 0.125, 1e-14);
  EXPECT_NEAR(four.chi2_p, 0.133614402537716, 1e-12);
}

TEST(McNemar, PairedVerdictsCountOnlyTheDiscordantPairs) {
  //            right right  wrong  right  wrong  right
  //  baseline  right wrong  right  wrong  wrong  right
  McNemar m = mcnemar_paired({true, true, false, true, false, true}, {true, false, true, false, false, true});
  EXPECT_EQ(m.b, 2);
  EXPECT_EQ(m.c, 1);
}

TEST(IncompleteBeta, MatchesMpmath) {
  EXPECT_NEAR(regularized_incomplete_beta(2, 3, 0.4), 0.5248, 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 0.5, 0.3), 0.369010119565545, 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(10, 0.5, 0.9), 0.151640909634710, 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(5, 20, 0.2), 0.540122670242421, 1e-13);
  EXPECT_NEAR(regularized_incomplete_beta(100, 100, 0.55), 0.921612067287780, 1e-12);
  EXPECT_EQ(regularized_incomplete_beta(2, 3, 0), 0.0);
  EXPECT_EQ(regularized_incomplete_beta(2, 3, 1), 1.0);
}

TEST(StudentT, CdfMatchesTablesAndMpmath) {
  EXPECT_NEAR(student_t_cdf(2.0, 5), 0.949030260585071, 1e-12);
  EXPECT_NEAR(student_t_cdf(-1.5, 3), 0.115291932622412, 1e-12);
  EXPECT_DOUBLE_EQ(student_t_cdf(0.0, 10), 0.5);
  EXPECT_NEAR(student_t_cdf(3.0, 30), 0.997305017967174, 1e-12);
  // The textbook 97.5 % quantiles: t(10) = 2.228138851986, t(1) = 12.706204736174.
  EXPECT_NEAR(student_t_cdf(2.228138851986, 10), 0.975, 1e-11);
  EXPECT_NEAR(student_t_cdf(12.706204736174, 1), 0.975, 1e-11);
  EXPECT_EQ(student_t_cdf(std::numeric_limits<double>::infinity(), 4), 1.0);
}

TEST(PairedT, OverFiveRuns) {
  // Differences 0.2, 0.05, 0.2, 0.05, 0.05: mean 0.11, sd sqrt(0.0675/4).
  PairedT r = paired_t_test({0.8, 0.7, 0.9, 0.85, 0.75}, {0.6, 0.65, 0.7, 0.8, 0.7});
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.n, 5);
  EXPECT_EQ(r.df, 4);
  EXPECT_NEAR(r.mean, 0.11, 1e-12);
  EXPECT_NEAR(r.t, 2.99382079673500, 1e-10);
  EXPECT_NEAR(r.p, 0.0401862182554253, 1e-12);
  // Swapping the sides flips t, not p.
  PairedT s = paired_t_test({0.6, 0.65, 0.7, 0.8, 0.7}, {0.8, 0.7, 0.9, 0.85, 0.75});
  EXPECT_NEAR(s.t, -r.t, 1e-10);
  EXPECT_NEAR(s.p, r.p, 1e-12);
}

TEST(PairedT, DegenerateInputs) {
  EXPECT_FALSE(paired_t_test({0.5}, {0.4}).valid);
  EXPECT_FALSE(paired_t_test({}, {}).valid);
  PairedT same = paired_t_test({0.5, 0.7}, {0.5, 0.7});
  EXPECT_TRUE(same.valid);
  EXPECT_EQ(same.t, 0.0);
  EXPECT_EQ(same.p, 1.0);
  PairedT shifted = paired_t_test({1.0, 2.0, 3.0}, {0.0, 1.0, 2.0});
  EXPECT_TRUE(std::isinf(shifted.t) && shifted.t > 0);
  EXPECT_EQ(shifted.p, 0.0);
}

TEST(Summary, AccuracyOverJudgedItemsAndCostEfficiency) {
  RunSummary s = summarize({{true, 100, 0.01, 1000},
                            {false, 50, 0.02, 500},
                            {true, 10, 0.0, 10},
                            {std::nullopt, 5, 0.0, 5},
                            {true, 0, 0.0, 0}});
  EXPECT_EQ(s.items, 5);
  EXPECT_EQ(s.judged, 4);
  EXPECT_EQ(s.correct, 3);
  EXPECT_DOUBLE_EQ(s.accuracy, 0.75);
  EXPECT_NEAR(s.interval.low, 0.300641842582402, 1e-12);
  EXPECT_EQ(s.tokens, 165);
  EXPECT_NEAR(s.usd, 0.03, 1e-12);
  EXPECT_EQ(s.ms, 1515);
  // CS = 0.75 × 100 / (0.03 + 0.01).
  EXPECT_NEAR(s.cost_efficiency, 1875.0, 1e-9);
  EXPECT_NEAR(cost_efficiency(1.0, 0.0), 10000.0, 1e-9);
  RunSummary empty = summarize({});
  EXPECT_EQ(empty.accuracy, 0.0);
  EXPECT_EQ(empty.cost_efficiency, 0.0);
}

}  // namespace statistics_test
}  // namespace kaisha::eval
