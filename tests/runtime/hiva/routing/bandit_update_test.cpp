// hiva.md §14 items 17 and 18: hand-computed updates, to 1e-9.
#include "runtime/hiva/routing/bandit_update.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kaisha::hiva {
namespace bandit_update_test {

BanditSettings paper_like() {
  BanditSettings s;
  s.decay = 0.6;  // κ
  s.delta = 0.5;
  s.rho_overlap = 0.8;
  return s;
}

Posterior arm(const Posterior& p, const ArmFeedback& f, int64_t iteration, const BanditSettings& s) {
  auto r = update_arm(p, f, iteration, s);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : Posterior{};
}

EdgeState edge(const EdgeState& e, const EdgeFeedback& f, int64_t iteration, const BanditSettings& s) {
  auto r = update_edge(e, f, iteration, s);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : EdgeState{};
}

TEST(HivaBanditUpdate, ASelectedAgentDecaysAndGainsRewardPlusKnowledgeTerms) {
  // Δt = 1, γ = e^-0.6; KM = 0.8 · 0.5 = 0.4, KD = 0.6.
  const Posterior p = arm({2.0, 3.0, 4}, {true, 1.0, 0.5}, 5, paper_like());
  EXPECT_NEAR(p.alpha, 2.0 * std::exp(-0.6) + 1.0 + 0.5 * 0.4, 1e-9);
  EXPECT_NEAR(p.beta, 3.0 * std::exp(-0.6) + 0.0 + 0.5 * 0.6, 1e-9);
  EXPECT_EQ(p.updated_at, 5);
  // A failure moves the weight to β.
  const Posterior q = arm({2.0, 3.0, 4}, {true, 0.0, 0.5}, 5, paper_like());
  EXPECT_NEAR(q.alpha, 2.0 * std::exp(-0.6) + 0.2, 1e-9);
  EXPECT_NEAR(q.beta, 3.0 * std::exp(-0.6) + 1.0 + 0.3, 1e-9);
}

TEST(HivaBanditUpdate, AnUnselectedAgentOnlyDecays) {
  const Posterior p = arm({2.0, 3.0, 4}, {false, 1.0, 0.5}, 5, paper_like());
  EXPECT_NEAR(p.alpha, 2.0 * std::exp(-0.6), 1e-9);
  EXPECT_NEAR(p.beta, 3.0 * std::exp(-0.6), 1e-9);
  EXPECT_EQ(p.updated_at, 5);
}

TEST(HivaBanditUpdate, WithoutDecayOfUnselectedAgentsTheDecayIsCaughtUpOnSelection) {
  BanditSettings s = paper_like();
  s.decay_unselected = false;
  const Posterior idle = arm({2.0, 3.0, 4}, {false, 1.0, 0.5}, 5, s);
  EXPECT_EQ(idle.alpha, 2.0);
  EXPECT_EQ(idle.beta, 3.0);
  EXPECT_EQ(idle.updated_at, 4);
  // Selected at iteration 7: Δt = 3.
  const Posterior p = arm(idle, {true, 1.0, 0.5}, 7, s);
  EXPECT_NEAR(p.alpha, 2.0 * std::exp(-1.8) + 1.2, 1e-9);
  EXPECT_NEAR(p.beta, 3.0 * std::exp(-1.8) + 0.3, 1e-9);
  // Decaying every iteration reaches the same posterior.
  const BanditSettings every = paper_like();
  Posterior q{2.0, 3.0, 4};
  q = arm(q, {false, 0.0, 0.0}, 5, every);
  q = arm(q, {false, 0.0, 0.0}, 6, every);
  q = arm(q, {true, 1.0, 0.5}, 7, every);
  EXPECT_NEAR(q.alpha, p.alpha, 1e-9);
  EXPECT_NEAR(q.beta, p.beta, 1e-9);
}

TEST(HivaBanditUpdate, TheDecayCanBeReadAsGammaItself) {
  BanditSettings s = paper_like();
  s.decay_is_gamma = true;
  EXPECT_NEAR(decay_factor(s, 2), 0.36, 1e-12);
  const Posterior p = arm({2.0, 3.0, 0}, {false, 0.0, 0.0}, 2, s);
  EXPECT_NEAR(p.alpha, 0.72, 1e-9);
  EXPECT_NEAR(p.beta, 1.08, 1e-9);
  EXPECT_NEAR(decay_factor(paper_like(), 2), std::exp(-1.2), 1e-12);
  EXPECT_EQ(decay_factor(paper_like(), 0), 1.0);
}

TEST(HivaBanditUpdate, KnowledgeMatchIsClampedSoKdStaysAShare) {
  BanditSettings s = paper_like();
  s.rho_overlap = 2.0;
  EXPECT_EQ(knowledge_match(s, 0.9), 1.0);
  EXPECT_EQ(knowledge_match(s, -0.3), 0.0);
  EXPECT_NEAR(knowledge_match(paper_like(), 0.5), 0.4, 1e-12);
  const Posterior p = arm({1.0, 1.0, 0}, {true, 1.0, 0.9}, 0, s);  // Δt = 0: no decay
  EXPECT_NEAR(p.alpha, 1.0 + 1.0 + 0.5, 1e-9);
  EXPECT_NEAR(p.beta, 1.0, 1e-9);  // 1 - r + δ·KD = 0
}

TEST(HivaBanditUpdate, AlphaAndBetaNeverFallBelowTheFloor) {
  BanditSettings s = paper_like();
  s.floor = 0.01;
  const Posterior p = arm({1.0, 1.0, 0}, {false, 0.0, 0.0}, 1000, s);
  EXPECT_EQ(p.alpha, 0.01);
  EXPECT_EQ(p.beta, 0.01);
}

TEST(HivaBanditUpdate, AnUnusedEdgeKeepsItsSynergy) {
  const EdgeState e = edge({0.7, {4.0, 1.0, 2}}, {0.0, 1.0}, 3, paper_like());
  EXPECT_EQ(e.synergy, 0.7);
  EXPECT_NEAR(e.posterior.alpha, 4.0 * std::exp(-0.6), 1e-9);  // decays like an unselected agent
  EXPECT_NEAR(e.posterior.beta, 1.0 * std::exp(-0.6), 1e-9);
}

TEST(HivaBanditUpdate, AUsedEdgeGainsRateTimesPosteriorMeanTimesContribution) {
  BanditSettings s = paper_like();
  s.synergy_rate = 0.1;
  // Posterior mean 4 / (4 + 1) = 0.8, ℛ = 1: C_syn gains 0.1 · 0.8 = 0.08.
  const EdgeState e = edge({0.7, {4.0, 1.0, 2}}, {1.0, 1.0}, 3, s);
  EXPECT_NEAR(e.synergy, 0.78, 1e-9);
  EXPECT_NEAR(e.synergy - 0.7, 0.08, 1e-9);
  // The edge posterior mirrors §6.3 with the downstream agent's reward.
  EXPECT_NEAR(e.posterior.alpha, 4.0 * std::exp(-0.6) + 1.0, 1e-9);
  EXPECT_NEAR(e.posterior.beta, 1.0 * std::exp(-0.6), 1e-9);
  EXPECT_EQ(e.posterior.updated_at, 3);
  const EdgeState failed = edge({0.7, {4.0, 1.0, 2}}, {1.0, 0.0}, 3, s);
  EXPECT_NEAR(failed.synergy, 0.78, 1e-9);  // the gain uses the posterior before this update
  EXPECT_NEAR(failed.posterior.beta, 1.0 * std::exp(-0.6) + 1.0, 1e-9);
}

TEST(HivaBanditUpdate, BadInputsAndSettingsAreErrorsNamingThem) {
  auto r = update_arm({1.0, 1.0, 5}, {true, 1.0, 0.0}, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "iteration 4 is before the posterior's last update at iteration 5");
  r = update_arm({1.0, 1.0, 0}, {true, 1.5, 0.0}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "reward 1.5 is outside [0, 1]");
  r = update_arm({0.0, 1.0, 0}, {true, 1.0, 0.0}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "posterior Beta(0, 1): alpha and beta must be finite and > 0");
  auto e = update_edge({0.0, {1.0, 1.0, 0}}, {-1.0, 1.0}, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "contribution -1 must be finite and >= 0");
  BanditSettings s;
  s.decay_is_gamma = true;
  s.decay = 1.5;
  ASSERT_FALSE(validate(s).ok());
  EXPECT_EQ(validate(s).error().message,
            "KABB bandit settings: decay is 1.5; read as γ (decay_is_gamma) it must be in (0, 1]");
  s = BanditSettings{};
  s.floor = 0.0;
  EXPECT_EQ(update_arm({1.0, 1.0, 0}, {}, 1, s).error().code, "config");
  EXPECT_TRUE(validate(BanditSettings{}).ok());
}

}  // namespace bandit_update_test
}  // namespace kaisha::hiva
