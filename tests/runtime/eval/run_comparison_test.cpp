// Two runs of one suite compared answer by answer: what is paired, McNemar's
// counts, and the paired t-test over repetitions, against hand-computed values.
#include "runtime/eval/run_comparison.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace kaisha::eval {
namespace run_comparison_test {

void add(ScoredAnswers& run, const std::string& item, int rep, std::optional<bool> correct, double usd = 0.01) {
  ItemRecord r;
  r.item = item;
  r.repetition = rep;
  r.correct = correct;
  r.usd = usd;
  r.tokens_in = 100;
  run[std::to_string(rep) + "/" + item] = r;
}

TEST(RunComparison, PairsAnswersByItemAndRepetitionAndTestsThem) {
  ScoredAnswers cand, base;
  // Repetition 1: the candidate alone gets b and d right.
  add(cand, "a", 1, true), add(base, "a", 1, true);
  add(cand, "b", 1, true), add(base, "b", 1, false);
  add(cand, "c", 1, false), add(base, "c", 1, false);
  add(cand, "d", 1, true), add(base, "d", 1, false);
  // Repetition 2: the candidate alone gets a right.
  add(cand, "a", 2, true), add(base, "a", 2, false);
  add(cand, "b", 2, true), add(base, "b", 2, true);
  add(cand, "c", 2, true), add(base, "c", 2, true);
  add(cand, "d", 2, false), add(base, "d", 2, false);
  add(cand, "e", 1, true);                         // the baseline never answered it
  add(cand, "f", 1, true), add(base, "f", 1, {});  // the baseline's answer had no verdict

  RunComparison c = compare_runs(cand, base);
  EXPECT_EQ(c.paired, 8);
  EXPECT_EQ(c.unpaired, 2);
  EXPECT_EQ(c.candidate.correct, 6);
  EXPECT_DOUBLE_EQ(c.candidate.accuracy, 0.75);
  EXPECT_EQ(c.baseline.correct, 3);
  EXPECT_NEAR(c.candidate.usd, 0.08, 1e-12);
  EXPECT_EQ(c.test.b, 3);
  EXPECT_EQ(c.test.c, 0);
  EXPECT_NEAR(c.test.exact_p, 0.25, 1e-12);  // 2 · (1/2)³
  // Per-repetition accuracies 0.75, 0.75 against 0.25, 0.5: differences 0.5
  // and 0.25, t = 0.375 / (0.1768 / √2) = 3 on one degree of freedom, where
  // t is Cauchy: p = 2 (1/2 − atan(3)/π).
  ASSERT_TRUE(c.per_repetition.valid);
  EXPECT_EQ(c.per_repetition.n, 2);
  EXPECT_NEAR(c.per_repetition.mean, 0.375, 1e-12);
  EXPECT_NEAR(c.per_repetition.t, 3.0, 1e-9);
  EXPECT_NEAR(c.per_repetition.p, 2 * (0.5 - std::atan(3.0) / M_PI), 1e-9);
}

TEST(RunComparison, OneRepetitionHasNoPerRepetitionTestAndDisjointRunsPairNothing) {
  ScoredAnswers cand, base;
  add(cand, "a", 1, true), add(base, "a", 1, false);
  RunComparison one = compare_runs(cand, base);
  EXPECT_EQ(one.paired, 1);
  EXPECT_EQ(one.test.b, 1);
  EXPECT_FALSE(one.per_repetition.valid);

  ScoredAnswers other;
  add(other, "z", 1, true);
  RunComparison none = compare_runs(cand, other);
  EXPECT_EQ(none.paired, 0);
  EXPECT_EQ(none.unpaired, 2);
  EXPECT_EQ(none.test.b + none.test.c, 0);
  EXPECT_DOUBLE_EQ(none.test.exact_p, 1.0);
}

}  // namespace run_comparison_test
}  // namespace kaisha::eval
