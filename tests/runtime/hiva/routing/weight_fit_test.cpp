// Fitting ω (hiva.md §6.2) on hand-made routing outcomes whose best weights
// are known: the fit finds them, prefers the prior on ties, and refuses data
// it cannot fit, saying why.
#include "runtime/hiva/routing/weight_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kaisha::hiva {
namespace weight_fit_test {

// Deterministic values in [0, 1) that are not collinear with each other.
double wave(int i, int a, int m) { return double((i * a) % m) / m; }

TEST(HivaWeightFit, PearsonIsTheTextbookValueAndUndefinedWithoutVariance) {
  // x = 1, 2, 3, 4; y = 2, 4, 5, 4: mean x 2.5, mean y 3.75; Sxy = 3.5,
  // Sxx = 5, Syy = 4.75; r = 3.5 / sqrt(5 · 4.75).
  auto r = pearson({1, 2, 3, 4}, {2, 4, 5, 4});
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 3.5 / std::sqrt(23.75), 1e-12);
  EXPECT_FALSE(pearson({1, 1, 1}, {1, 2, 3}));
  EXPECT_FALSE(pearson({1}, {1}));
  EXPECT_FALSE(pearson({1, 2}, {1, 2, 3}));
}

TEST(HivaWeightFit, ASuccessLinearInPsi1AndPsi2IsFitExactly) {
  // success = 1 − (½Ψ1 + ½Ψ2): −Dist is perfectly correlated with it at
  // ω = (½, ½, 0, 0) and at no other point of the grid, whatever d_I is.
  std::vector<RoutingOutcome> data;
  for (int i = 0; i < 60; ++i) {
    RoutingOutcome o;
    o.depth = 2;
    o.psi = {wave(i, 7, 31), wave(i, 11, 37), wave(i, 13, 41), wave(i, 17, 43)};
    o.success = 1.0 - (0.5 * o.psi[0] + 0.5 * o.psi[1]);
    data.push_back(o);
  }
  auto fit = fit_weights(data);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->weights, (std::array<double, 4>{0.5, 0.5, 0.0, 0.0}));
  EXPECT_NEAR(fit->correlation, 1.0, 1e-9);
  EXPECT_LT(fit->prior_correlation, fit->correlation);
  EXPECT_EQ(fit->outcomes, 60u);
}

TEST(HivaWeightFit, ASuccessDecidedByPsi2AloneGetsMostOfItsWeightThere) {
  // 0/1 success (the point-biserial case): success iff Ψ2 < 0.5; the other
  // indicators are unrelated.
  std::vector<RoutingOutcome> data;
  for (int i = 0; i < 80; ++i) {
    RoutingOutcome o;
    o.depth = 1 + i % 3;
    o.psi = {wave(i, 7, 31), wave(i, 11, 37), wave(i, 13, 41), wave(i, 17, 43)};
    o.success = o.psi[1] < 0.5 ? 1.0 : 0.0;
    data.push_back(o);
  }
  auto fit = fit_weights(data);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  for (size_t k : {0u, 2u, 3u}) EXPECT_GT(fit->weights[1], fit->weights[k]) << k;
  EXPECT_GE(fit->weights[1], 0.5);
  EXPECT_GT(fit->correlation, fit->prior_correlation);
  double sum = 0;
  for (double w : fit->weights) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(HivaWeightFit, TiesGoToThePointNearestThePrior) {
  // Only Ψ3 varies, so every ω with ω3 > 0 correlates the same: the prior's
  // neighbourhood wins, and the prior itself when it is on the grid.
  std::vector<RoutingOutcome> data;
  for (int i = 0; i < 40; ++i) {
    RoutingOutcome o;
    o.depth = 1;
    o.psi = {0.5, 0.5, wave(i, 7, 31), 0.5};
    o.success = 1.0 - o.psi[2];
    data.push_back(o);
  }
  WeightFitSettings s;
  s.prior = {0.1, 0.2, 0.3, 0.4};
  auto fit = fit_weights(data, s);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_NEAR(fit->correlation, 1.0, 1e-9);
  for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(fit->weights[k], s.prior[k], 1e-12) << k;
}

TEST(HivaWeightFit, TooFewOutcomesConstantSuccessAndBadValuesAreRefusedSayingWhy) {
  std::vector<RoutingOutcome> data(10);
  for (int i = 0; i < 10; ++i) data[i] = RoutingOutcome{1, {wave(i, 7, 31), 0, 0, 0}, double(i % 2)};
  auto few = fit_weights(data);
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().code, "not_enough");
  EXPECT_EQ(few.error().message, "10 routing outcomes; the fit needs 30");

  WeightFitSettings s;
  s.min_outcomes = 5;
  EXPECT_TRUE(fit_weights(data, s).ok());
  for (RoutingOutcome& o : data) o.success = 1;
  auto flat = fit_weights(data, s);
  ASSERT_FALSE(flat.ok());
  EXPECT_EQ(flat.error().message,
            "every one of the 10 routing outcomes has the same success (1); there is nothing to correlate the "
            "knowledge cost with");
  data[3].success = 0;
  data[3].psi[2] = 1.5;
  auto bad = fit_weights(data, s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "invalid_argument");
  EXPECT_EQ(bad.error().message, "outcomes[3].psi[2]: 1.5 is outside [0, 1]");
  data[3].psi[2] = 0;
  for (RoutingOutcome& o : data) o.depth = 0;  // Dist is 0 whatever ω is
  auto zero = fit_weights(data, s);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message,
            "the knowledge cost is the same for all 10 routing outcomes under every weighting; there is nothing to "
            "fit");
  s.steps = 0;
  EXPECT_EQ(fit_weights(data, s).error().code, "config");
}

TEST(HivaWeightFit, OutcomesRoundTripThroughTheirSnapshotFormAndBadEntriesAreSkipped) {
  const std::vector<RoutingOutcome> outcomes = {{2, {0.1, 0.2, 0.5, 1.0}, 1.0}, {0, {0, 0, 0, 0}, 0.0}};
  const json j = routing_outcomes_json(outcomes);
  EXPECT_EQ(j, json::parse("[[2, 0.1, 0.2, 0.5, 1.0, 1.0], [0, 0.0, 0.0, 0.0, 0.0, 0.0]]"));
  const auto back = routing_outcomes_from_json(j);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].depth, 2);
  EXPECT_EQ(back[0].psi, outcomes[0].psi);
  EXPECT_EQ(back[0].success, 1.0);
  json bad = j;
  bad.push_back(json::array({1, 0.5, 0.5, 0.5, 1.5, 1}));  // Ψ4 out of range
  bad.push_back(json::array({-1, 0, 0, 0, 0, 1}));
  bad.push_back("x");
  EXPECT_EQ(routing_outcomes_from_json(bad).size(), 2u);
  EXPECT_TRUE(routing_outcomes_from_json(json::object()).empty());
}

}  // namespace weight_fit_test
}  // namespace kaisha::hiva
