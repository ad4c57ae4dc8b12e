// effgen.md §23 items 13 and 18: weights, their validation, the weighted sum.
#include <gtest/gtest.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/effgen/routing/complexity_score.hpp"
#include "runtime/effgen/routing/routing_config.hpp"
#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing {
namespace {

ComplexityScore factors(double len, double req, double dom, double tool, double reas) {
  ComplexityScore s;
  s.length = len;
  s.requirements = req;
  s.domain = dom;
  s.tools = tool;
  s.reasoning = reas;
  return combine_factors(s, ComplexityWeights{});
}

TEST(ComplexityWeights, DefaultsArePaperValues) {
  ComplexityWeights w;
  EXPECT_DOUBLE_EQ(w.length, 0.15);
  EXPECT_DOUBLE_EQ(w.requirements, 0.25);
  EXPECT_DOUBLE_EQ(w.domain, 0.20);
  EXPECT_DOUBLE_EQ(w.tools, 0.20);
  EXPECT_DOUBLE_EQ(w.reasoning, 0.20);
  EXPECT_TRUE(w.validate());
}

TEST(ComplexityWeightedSum, W1VectorGives5) { EXPECT_DOUBLE_EQ(factors(4, 6, 5, 2.5, 7).total, 5.0); }

TEST(ComplexityWeightedSum, W2VectorGives7Point2) { EXPECT_DOUBLE_EQ(factors(6, 8, 7.5, 5, 9).total, 7.2); }

TEST(ComplexityWeightedSum, AllTensGive10AndAllZerosGive0) {
  EXPECT_DOUBLE_EQ(factors(10, 10, 10, 10, 10).total, 10.0);
  EXPECT_DOUBLE_EQ(factors(0, 0, 0, 0, 0).total, 0.0);
}

TEST(ComplexityWeightedSum, CustomWeightsApply) {
  ComplexityScore s;
  s.length = 10;
  ComplexityWeights w{1.0, 0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(combine_factors(s, w).total, 10.0);
}

TEST(ComplexityWeights, SumOf0Point95IsTheExactError) {
  ComplexityWeights w{0.15, 0.25, 0.20, 0.20, 0.15};
  Status s = w.validate();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, "config");
  EXPECT_EQ(s.error().message, "Complexity weights must sum to 1.0 (got 0.95)");
}

TEST(ComplexityWeights, AnalyzerRefusesBadWeights) {
  AnalyzerOptions o;
  o.weights.reasoning = 0.15;
  auto a = ComplexityAnalyzer::create(testing::shipped_tables(), o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().message, "Complexity weights must sum to 1.0 (got 0.95)");
}

TEST(ComplexityWeights, WithinToleranceIsAccepted) {
  EXPECT_TRUE((ComplexityWeights{0.15, 0.25, 0.20, 0.20, 0.205}.validate()));
  EXPECT_FALSE((ComplexityWeights{0.15, 0.25, 0.20, 0.20, 0.215}.validate()));
}

TEST(ComplexityWeights, NegativeWeightNamesTheFactor) {
  Status s = ComplexityWeights{0.15, 0.25, 0.20, -0.2, 0.60}.validate();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "Complexity weight 'tool_requirements' must be in [0, 1] (got -0.2)");
}

TEST(ComplexityWeights, YamlErrorNamesFileLineAndKey) {
  auto doc = config::parse_yaml(
      "threshold: 7.0\n"
      "weights:\n"
      "  task_length: 0.15\n"
      "  requirement_count: 0.25\n"
      "  domain_breadth: 0.20\n"
      "  tool_requirements: 0.20\n"
      "  reasoning_depth: 0.15\n",
      "routing.yaml");
  ASSERT_TRUE(doc);
  auto c = parse_routing_config(*doc, "routing.yaml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "routing.yaml:3: weights: Complexity weights must sum to 1.0 (got 0.95)");
}

}  // namespace
}  // namespace kaisha::routing
