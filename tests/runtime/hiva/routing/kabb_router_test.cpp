// hiva.md §14 items 6 and 20.
#include "runtime/hiva/routing/kabb_router.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/core/fnv1a.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"

namespace kaisha::hiva {
namespace kabb_router_test {

RoutingDecision decision(int64_t iteration, const std::string& router = "planner", uint64_t seed = 42) {
  return RoutingDecision{random::TaskSeed("hiva-task", seed), iteration, router};
}

KabbSettings pure_thompson(int k) {
  KabbSettings s;
  s.lambda = 0.0;
  s.eta = 0.0;
  s.k = k;
  return s;
}

Selection select(const std::vector<Candidate>& candidates, const KabbSettings& settings, const RoutingDecision& d,
                 const std::vector<std::string>& selected = {}, const SynergyLookup& synergy = {}) {
  auto s = select_successors(candidates, selected, synergy, settings, d);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

// How often the first candidate is chosen (k = 1) over `rounds` iterations.
int first_wins(const std::vector<Candidate>& candidates, const KabbSettings& settings, int rounds) {
  int wins = 0;
  for (int t = 0; t < rounds; ++t) {
    const Selection s = select(candidates, settings, decision(t));
    if (!s.chosen.empty() && s.chosen.front() == candidates.front().id) ++wins;
  }
  return wins;
}

TEST(HivaKabbRouter, ThetaIsTheReferenceBetaDrawForTheDecisionsKey) {
  const RoutingDecision d = decision(3);
  const Selection s = select({{"coder", 2.0, 5.0, 0.0}, {"tester", 4.0, 1.5, 0.0}}, pure_thompson(2), d);
  ASSERT_EQ(s.scores.size(), 2u);
  random::RandomStream coder(random::TaskSeed("hiva-task", 42),
                             random::StreamKey("hiva.kabb.theta", 3, fnv1a_64("planner"), fnv1a_64("coder")));
  random::RandomStream tester(random::TaskSeed("hiva-task", 42),
                              random::StreamKey("hiva.kabb.theta", 3, fnv1a_64("planner"), fnv1a_64("tester")));
  EXPECT_EQ(s.scores[0].theta, random::beta(coder, 2.0, 5.0));
  EXPECT_EQ(s.scores[1].theta, random::beta(tester, 4.0, 1.5));
  EXPECT_EQ(theta_stream_key(3, "planner", "coder"),
            random::StreamKey("hiva.kabb.theta", 3, fnv1a_64("planner"), fnv1a_64("coder")));
  // λ = η = 0: the score is θ.
  EXPECT_EQ(s.scores[0].score, s.scores[0].theta);
}

TEST(HivaKabbRouter, ADrawDependsOnItsKeyNotOnTheCandidatesOrder) {
  const Selection forward = select({{"a", 2.0, 2.0}, {"b", 3.0, 1.0}, {"c", 1.0, 3.0}}, pure_thompson(3), decision(7));
  const Selection reversed = select({{"c", 1.0, 3.0}, {"b", 3.0, 1.0}, {"a", 2.0, 2.0}}, pure_thompson(3), decision(7));
  EXPECT_EQ(forward.scores[0].theta, reversed.scores[2].theta);
  EXPECT_EQ(forward.scores[1].theta, reversed.scores[1].theta);
  EXPECT_EQ(forward.scores[2].theta, reversed.scores[0].theta);
  EXPECT_EQ(forward.chosen, reversed.chosen);
  // Another iteration, router or seed draws another θ.
  EXPECT_NE(select({{"a", 2.0, 2.0}}, pure_thompson(1), decision(8)).scores[0].theta, forward.scores[0].theta);
  EXPECT_NE(select({{"a", 2.0, 2.0}}, pure_thompson(1), decision(7, "coder")).scores[0].theta, forward.scores[0].theta);
  EXPECT_NE(select({{"a", 2.0, 2.0}}, pure_thompson(1), decision(7, "planner", 43)).scores[0].theta,
            forward.scores[0].theta);
}

TEST(HivaKabbRouter, PureThompsonPicksTheHigherMeanAgentMoreOften) {
  // Means 0.6 and 0.4; P(θ_a > θ_b) ≈ 0.756 for Beta(3, 2) against
  // Beta(2, 3) (the standard deviation of 10^4 picks is about 43).
  const int wins = first_wins({{"a", 3.0, 2.0}, {"b", 2.0, 3.0}}, pure_thompson(1), 10000);
  EXPECT_GT(wins, 7300);
  EXPECT_LT(wins, 7800);  // and the lower-mean agent is still explored
  // Swapping the posteriors swaps the preference.
  EXPECT_LT(first_wins({{"a", 2.0, 3.0}, {"b", 3.0, 2.0}}, pure_thompson(1), 10000), 2700);
}

TEST(HivaKabbRouter, ALargerDistLowersTheSelectionFrequency) {
  KabbSettings s = pure_thompson(1);
  s.lambda = 1.0;
  const int near = first_wins({{"a", 2.0, 2.0, 0.0}, {"b", 2.0, 2.0, 0.0}}, s, 4000);
  const int far = first_wins({{"a", 2.0, 2.0, 1.0}, {"b", 2.0, 2.0, 0.0}}, s, 4000);
  const int farther = first_wins({{"a", 2.0, 2.0, 3.0}, {"b", 2.0, 2.0, 0.0}}, s, 4000);
  EXPECT_GT(near, 1800);  // equal candidates: about half
  EXPECT_LT(near, 2200);
  EXPECT_LT(far, near - 500);  // P(θ_a·e^-1 > θ_b) ≈ 0.10
  EXPECT_LT(farther, far);     // P(θ_a·e^-3 > θ_b) ≈ 0.002
}

TEST(HivaKabbRouter, MeanModeIsDeterministicAndMatchesTheFormula) {
  KabbSettings s;
  s.mode = ThetaMode::mean;
  s.lambda = 0.5;
  s.eta = 2.0;
  s.k = 2;
  // C_syn(planner, b) = 2; every other ordered pair has no edge (default 1).
  const SynergyLookup synergy = synergy_table({{{"planner", "b"}, 2.0}});
  const std::vector<Candidate> candidates = {{"a", 3.0, 1.0, 0.4}, {"b", 1.0, 1.0, 0.2}, {"c", 1.0, 4.0, 0.0}};
  const Selection one = select(candidates, s, decision(1), {"planner"}, synergy);
  const Selection two = select(candidates, s, decision(99, "other", 7), {"planner"}, synergy);
  ASSERT_EQ(one.scores.size(), 3u);
  EXPECT_DOUBLE_EQ(one.scores[0].theta, 0.75);
  EXPECT_DOUBLE_EQ(one.scores[0].zeta, 1.0);
  EXPECT_DOUBLE_EQ(one.scores[0].score, 0.75 * std::exp(-0.5 * 0.4));
  EXPECT_DOUBLE_EQ(one.scores[1].zeta, 1.5);  // (2 + 1) / 2
  EXPECT_DOUBLE_EQ(one.scores[1].score, 0.5 * std::exp(-0.5 * 0.2) * 1.5 * 1.5);
  EXPECT_DOUBLE_EQ(one.scores[2].score, 0.2);
  EXPECT_EQ(one.chosen, (std::vector<std::string>{"b", "a"}));  // 1.018 > 0.614 > 0.2
  EXPECT_EQ(one.chosen, two.chosen);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(one.scores[i].score, two.scores[i].score);
}

TEST(HivaKabbRouter, TiesGoToTheEarlierCandidateAndKAtLeastNChoosesAll) {
  KabbSettings s;
  s.mode = ThetaMode::mean;
  s.k = 1;
  EXPECT_EQ(select({{"x", 1.0, 1.0}, {"y", 1.0, 1.0}}, s, decision(0)).chosen, (std::vector<std::string>{"x"}));
  s.k = 5;
  // The aggregator is never filtered out, however far it is.
  const Selection all = select({{"x", 1.0, 1.0, 0.0}, {"aggregator", 1.0, 9.0, 50.0}, {"y", 2.0, 1.0}}, s, decision(0));
  EXPECT_EQ(all.chosen, (std::vector<std::string>{"y", "x", "aggregator"}));
  EXPECT_EQ(all.scores.size(), 3u);
  EXPECT_TRUE(select({}, s, decision(0)).chosen.empty());
}

TEST(HivaKabbRouter, WithoutKabbEverySuccessorIsChosenAndNothingDrawn) {
  KabbSettings s;
  s.enabled = false;
  s.k = 1;
  const Selection all = select({{"a", 1.0, 9.0, 5.0}, {"b", 9.0, 1.0}, {"aggregator", 1.0, 1.0}}, s, decision(0));
  EXPECT_EQ(all.chosen, (std::vector<std::string>{"a", "b", "aggregator"}));
  EXPECT_TRUE(all.scores.empty());
}

TEST(HivaKabbRouter, AZeroSynergyDoesNotZeroEveryScore) {
  KabbSettings s;
  s.mode = ThetaMode::mean;
  s.k = 1;
  s.synergy.missing_edge = 0.0;
  const Selection sel = select({{"weak", 1.0, 3.0}, {"strong", 3.0, 1.0}}, s, decision(0), {"planner"});
  EXPECT_EQ(sel.scores[1].zeta, 0.0);
  EXPECT_GT(sel.scores[1].score, sel.scores[0].score);
  EXPECT_EQ(sel.chosen, (std::vector<std::string>{"strong"}));
}

TEST(HivaKabbRouter, BadCandidatesAndSettingsAreErrorsNamingThem) {
  const SynergyLookup none;
  auto r = select_successors({{"a", 1.0, 1.0}, {"b", 0.0, 1.0}}, {}, none, KabbSettings{}, decision(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "candidates[1].alpha: 0 must be finite and > 0");
  r = select_successors({{"a", 1.0, 1.0}, {"a", 1.0, 1.0}}, {}, none, KabbSettings{}, decision(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "candidates[1].id: \"a\" is listed twice");
  r = select_successors({{"a", 1.0, 1.0, -0.5}}, {}, none, KabbSettings{}, decision(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "candidates[0].dist: -0.5 must be finite and >= 0");
  KabbSettings s;
  s.k = 0;
  r = select_successors({{"a", 1.0, 1.0}}, {}, none, s, decision(0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "config");
  EXPECT_EQ(r.error().message, "KABB settings: k is 0; it must be at least 1");
  s = KabbSettings{};
  s.eta = -1.0;
  EXPECT_EQ(validate(s).error().message, "KABB settings: eta is -1; it must be a finite number >= 0");
  s = KabbSettings{};
  s.zeta_floor = 0.0;
  EXPECT_FALSE(validate(s).ok());
  EXPECT_TRUE(validate(KabbSettings{}).ok());
}

}  // namespace kabb_router_test
}  // namespace kaisha::hiva
