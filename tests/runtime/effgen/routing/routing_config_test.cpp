// RoutingConfig: YAML parsing, validation (0 < τ < τ_H ≤ 10), profiles,
// aliases, and the Router built from it.
#include <gtest/gtest.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/effgen/routing/router.hpp"
#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing::routing_config_test {
namespace {

Result<RoutingConfig> parse(const std::string& yaml) {
  auto doc = config::parse_yaml(yaml, "routing.yaml");
  if (!doc) return doc.error();
  return parse_routing_config(*doc, "routing.yaml");
}

std::string error_of(const std::string& yaml) {
  auto c = parse(yaml);
  if (c) return "(parsed)";
  EXPECT_EQ(c.error().code, "config");
  return c.error().message;
}

TEST(RoutingConfig, EmptyGivesPaperDefaults) {
  auto c = parse("");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->enabled);
  EXPECT_DOUBLE_EQ(c->tau, 7.0);
  EXPECT_DOUBLE_EQ(c->tau_h, 8.5);
  EXPECT_EQ(c->spawn_strategy, SpawnStrategy::automatic);
  EXPECT_EQ(c->requirement_profile, "eq14");
  EXPECT_TRUE(c->validate());
}

TEST(RoutingConfig, FullDocument) {
  auto c = parse(
      "enabled: true\n"
      "threshold: 6.5\n"
      "hierarchical_threshold: 9\n"
      "weights: {task_length: 0.2, requirement_count: 0.2, domain_breadth: 0.2,\n"
      "          tool_requirements: 0.2, reasoning_depth: 0.2}\n"
      "requirement_profile: paper-example\n"
      "custom_domains: {medical: [diagnosis, clinical trial]}\n"
      "custom_tool_categories: {shell: [bash]}\n"
      "spawn_strategy: always\n"
      "enable_hierarchical: false\n");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_DOUBLE_EQ(c->tau, 6.5);
  EXPECT_DOUBLE_EQ(c->tau_h, 9.0);
  EXPECT_DOUBLE_EQ(c->weights.length, 0.2);
  EXPECT_EQ(c->requirement_profile, "paper-example");
  ASSERT_EQ(c->custom_domains.size(), 1u);
  EXPECT_EQ(c->custom_domains[0].phrases[1], "clinical trial");
  EXPECT_EQ(c->spawn_strategy, SpawnStrategy::always);
  EXPECT_FALSE(c->enable_hierarchical);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(RoutingConfig, ProfileByTierNameOrModelSize) {
  auto tiny = parse("threshold_profile: tiny\n");
  ASSERT_TRUE(tiny) << tiny.error().message;
  EXPECT_DOUBLE_EQ(tiny->tau, 5.5);
  EXPECT_DOUBLE_EQ(tiny->tau_h, 7.5);
  auto small = parse("model_size_b: 1.5\n");
  ASSERT_TRUE(small) << small.error().message;
  EXPECT_EQ(small->threshold_profile, "small");
  EXPECT_DOUBLE_EQ(small->tau, 6.0);
  EXPECT_DOUBLE_EQ(small->tau_h, 8.0);
  auto large = parse("model_size_b: 32\n");
  ASSERT_TRUE(large);
  EXPECT_DOUBLE_EQ(large->tau, 7.5);
  EXPECT_DOUBLE_EQ(large->tau_h, 9.0);
}

TEST(RoutingConfig, ExplicitThresholdOverridesProfile) {
  auto c = parse("threshold_profile: small\nthreshold: 6.5\n");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_DOUBLE_EQ(c->tau, 6.5);
  EXPECT_DOUBLE_EQ(c->tau_h, 8.0);
}

TEST(RoutingConfig, ThresholdsMustBeOrdered) {
  EXPECT_EQ(error_of("threshold: 8.5\nhierarchical_threshold: 7.0\n"),
            "routing.yaml:1: threshold: must satisfy 0 < threshold < hierarchical_threshold <= 10 (got 8.5 and 7)");
  EXPECT_NE(error_of("threshold: 0\n").find("0 < threshold"), std::string::npos);
  EXPECT_NE(error_of("hierarchical_threshold: 10.5\n").find("<= 10"), std::string::npos);
  RoutingConfig c;
  c.tau = 9.0;
  EXPECT_FALSE(c.validate());
}

TEST(RoutingConfig, BadValuesNameTheKey) {
  EXPECT_EQ(error_of("spawn_strategy: sometimes\n"),
            "routing.yaml:1: spawn_strategy: expected auto, never or always, got \"sometimes\"");
  EXPECT_EQ(error_of("threshold_profile: huge\n"),
            "routing.yaml:1: threshold_profile: unknown profile 'huge' (known: tiny, small, medium, large, xl)");
  EXPECT_EQ(error_of("treshold: 7\n"),
            "routing.yaml:1: unknown key 'treshold' in top level (did you mean 'threshold'?)");
  EXPECT_EQ(error_of("threshold_profile: small\nmodel_size_b: 3\n"),
            "routing.yaml:2: model_size_b: give either threshold_profile or model_size_b, not both");
  EXPECT_EQ(error_of("model_size_b: -1\n"), "routing.yaml:1: model_size_b: must be > 0 (billions of parameters)");
  EXPECT_EQ(
      error_of("custom_domains:\n  medical: [ok, \"??\"]\n"),
      "routing.yaml:2: custom_domains.medical[1]: keyword \"??\" has no letters or digits, so it can never match");
  EXPECT_EQ(error_of("enable_sub_agents: false\nspawn_strategy: always\n"),
            "routing.yaml:1: enable_sub_agents: is false but spawn_strategy is always");
}

TEST(RoutingConfig, AliasesAreAcceptedWithAWarning) {
  auto c = parse(
      "complexity_threshold: 6.0\n"
      "weights: {task_length: 0.15, num_requirements: 0.25, domain_breadth: 0.2,\n"
      "          tool_requirements: 0.2, reasoning_depth: 0.2}\n"
      "enable_sub_agents: false\n");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_DOUBLE_EQ(c->tau, 6.0);
  EXPECT_EQ(c->spawn_strategy, SpawnStrategy::never);
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_EQ(c->warnings[0], "routing.yaml:1: 'complexity_threshold' is an alias of 'threshold'");
  EXPECT_NE(c->warnings[1].find("'weights.num_requirements' is an alias of 'weights.requirement_count'"),
            std::string::npos);
  EXPECT_NE(error_of("threshold: 7\ncomplexity_threshold: 7\n").find("not both"), std::string::npos);
}

TEST(Router, RoutesAQueryAndJournalsTheScore) {
  RoutingConfig c;
  auto r = Router::create(c, testing::shipped_tables());
  ASSERT_TRUE(r) << r.error().message;
  RoutingDecision d = r->route("What is 2+2?");
  EXPECT_EQ(d.kind, RouteKind::single);
  json j = d.to_json();
  EXPECT_EQ(j["score"]["requirement_count"], 1);
  EXPECT_EQ(j["score"]["reasoning_level"], "simple");
}

TEST(Router, SpawnNeverFromYamlForcesSingleOnAComplexQuery) {
  auto c = parse("spawn_strategy: never\nthreshold_profile: tiny\n");
  ASSERT_TRUE(c);
  auto r = Router::create(*c, testing::shipped_tables());
  ASSERT_TRUE(r);
  RoutingDecision d = r->route(
      "Research, analyze and compare the market data; design a legal strategy, then forecast the budget, "
      "search online and calculate totals in a csv file?");
  EXPECT_GE(d.score.total, 7.5);  // hierarchical for a tiny model, but for never
  EXPECT_EQ(d.kind, RouteKind::single);
}

TEST(Router, CreateRejectsInvalidConfig) {
  RoutingConfig c;
  c.weights.length = 0.10;
  auto r = Router::create(c, testing::shipped_tables());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "Complexity weights must sum to 1.0 (got 0.95)");
}

TEST(Router, DefaultTablesComeFromTheDataDirectory) {
  auto r = Router::create(RoutingConfig{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->route("synthesize").score.reasoning, 9.0);
}

TEST(Router, MissingKeywordsFileIsAnErrorNamingIt) {
  RoutingConfig c;
  c.keywords_file = "/nonexistent/complexity_keywords.yaml";
  auto r = Router::create(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "config");
  EXPECT_NE(r.error().message.find("/nonexistent/complexity_keywords.yaml"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::routing::routing_config_test
