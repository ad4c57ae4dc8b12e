// effgen.md §23 item 19: routing boundaries, per-size threshold profiles,
// spawn_strategy overrides, and how a decompose route becomes a strategy.
#include <gtest/gtest.h>

#include "runtime/effgen/routing/routing_decision.hpp"

namespace kaisha::routing {
namespace {

ComplexityScore score(double total) {
  ComplexityScore s;
  s.total = total;
  return s;
}

RouteKind kind_at(double total, const RoutingConfig& c = {}) { return decide_route(score(total), c).kind; }

TEST(RoutingBoundary, Score6Point99IsSingle) { EXPECT_EQ(kind_at(6.99), RouteKind::single); }
TEST(RoutingBoundary, Score7Point0IsMulti) { EXPECT_EQ(kind_at(7.0), RouteKind::decompose); }
TEST(RoutingBoundary, Score8Point49IsNotHierarchical) { EXPECT_EQ(kind_at(8.49), RouteKind::decompose); }
TEST(RoutingBoundary, Score8Point5IsHierarchical) { EXPECT_EQ(kind_at(8.5), RouteKind::hierarchical); }

TEST(RoutingBoundary, NeverForcesSingle) {
  RoutingConfig c;
  c.spawn_strategy = SpawnStrategy::never;
  EXPECT_EQ(kind_at(7.0, c), RouteKind::single);
  EXPECT_EQ(kind_at(10.0, c), RouteKind::single);
  EXPECT_NE(decide_route(score(9.0), c).reason.find("spawn_strategy=never"), std::string::npos);
}

TEST(RoutingBoundary, AlwaysDecomposesAtLeast) {
  RoutingConfig c;
  c.spawn_strategy = SpawnStrategy::always;
  EXPECT_EQ(kind_at(0.0, c), RouteKind::decompose);
  EXPECT_EQ(kind_at(6.99, c), RouteKind::decompose);
  EXPECT_EQ(kind_at(8.5, c), RouteKind::hierarchical);
}

TEST(RoutingBoundary, DisabledIsSingle) {
  RoutingConfig c;
  c.enabled = false;
  EXPECT_EQ(kind_at(9.9, c), RouteKind::single);
}

TEST(RoutingBoundary, HierarchicalCanBeSwitchedOff) {
  // effgen.md §21 item 18: G.9 / W.5 (C = 8.7) ran as plain parallel
  // decompositions; enable_hierarchical=false reproduces that reading.
  RoutingConfig c;
  c.enable_hierarchical = false;
  EXPECT_EQ(kind_at(8.7, c), RouteKind::decompose);
}

struct TierCase {
  ModelTier tier;
  double tau, tau_h;
};

TEST(RoutingProfiles, Table8ThresholdsPerTier) {
  for (TierCase t : {TierCase{ModelTier::tiny, 5.5, 7.5}, TierCase{ModelTier::small, 6.0, 8.0},
                     TierCase{ModelTier::medium, 7.0, 8.5}, TierCase{ModelTier::large, 7.5, 9.0},
                     TierCase{ModelTier::xl, 7.5, 9.0}}) {
    SCOPED_TRACE(std::string(to_string(t.tier)));
    RoutingConfig c;
    c.use_tier(t.tier);
    EXPECT_DOUBLE_EQ(c.tau, t.tau);
    EXPECT_DOUBLE_EQ(c.tau_h, t.tau_h);
    EXPECT_EQ(c.threshold_profile, to_string(t.tier));
    EXPECT_EQ(kind_at(t.tau - 0.01, c), RouteKind::single);
    EXPECT_EQ(kind_at(t.tau, c), RouteKind::decompose);
    EXPECT_EQ(kind_at(t.tau_h - 0.01, c), RouteKind::decompose);
    EXPECT_EQ(kind_at(t.tau_h, c), RouteKind::hierarchical);
  }
}

TEST(RoutingProfiles, TierFromParameterCountFollowsDefinition31PlusXl) {
  // The router's tiers are the shared llm::ModelTier's, boundaries included.
  EXPECT_EQ(llm::tier_from_parameters(0.5), ModelTier::tiny);
  EXPECT_EQ(llm::tier_from_parameters(1.0), ModelTier::small);
  EXPECT_EQ(llm::tier_from_parameters(1.5), ModelTier::small);
  EXPECT_EQ(llm::tier_from_parameters(3.0), ModelTier::medium);
  EXPECT_EQ(llm::tier_from_parameters(7.0), ModelTier::large);
  EXPECT_EQ(llm::tier_from_parameters(14.0), ModelTier::xl);
  EXPECT_EQ(*llm::parse_model_tier("small"), ModelTier::small);
  EXPECT_FALSE(llm::parse_model_tier("huge").ok());
}

TEST(RoutingStrategy, DagShapeDecidesTheMultiAgentStrategy) {
  EXPECT_EQ(strategy_for_shape(planning::DagShape::parallel), Strategy::parallel);
  EXPECT_EQ(strategy_for_shape(planning::DagShape::sequential), Strategy::sequential);
  EXPECT_EQ(strategy_for_shape(planning::DagShape::hybrid), Strategy::hybrid);
  EXPECT_EQ(final_strategy(RouteKind::decompose, planning::DagShape::hybrid), Strategy::hybrid);
  EXPECT_EQ(final_strategy(RouteKind::single, planning::DagShape::parallel), Strategy::single);
  EXPECT_EQ(final_strategy(RouteKind::hierarchical, planning::DagShape::sequential), Strategy::hierarchical);
}

TEST(RoutingDecision, JsonCarriesScoreFactorsAndThresholds) {
  ComplexityScore s;
  s.length = 6;
  s.requirements = 8;
  s.domain = 7.5;
  s.tools = 5;
  s.reasoning = 9;
  s.domains_hit = {"technical", "research", "data"};
  s = combine_factors(s, ComplexityWeights{});
  RoutingConfig c;
  RoutingDecision d = decide_route(s, c);
  json j = d.to_json();
  EXPECT_EQ(j["kind"], "decompose");
  EXPECT_TRUE(j["strategy"].is_null());
  EXPECT_DOUBLE_EQ(j["complexity_score"].get<double>(), 7.2);
  EXPECT_DOUBLE_EQ(j["score"]["factors"]["domain"].get<double>(), 7.5);
  EXPECT_DOUBLE_EQ(j["score"]["weights"]["requirement_count"].get<double>(), 0.25);
  EXPECT_EQ(j["score"]["domains_hit"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["tau"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(j["tau_h"].get<double>(), 8.5);
  EXPECT_EQ(j["spawn_strategy"], "auto");
  EXPECT_EQ(j["reason"], "C=7.2 >= tau=7 and < tau_h=8.5: decompose; strategy from the DAG shape");
  EXPECT_EQ(decide_route(score(3), c).to_json()["strategy"], "single");
  EXPECT_EQ(decide_route(score(9), c).to_json()["strategy"], "hierarchical");
}

}  // namespace
}  // namespace kaisha::routing
