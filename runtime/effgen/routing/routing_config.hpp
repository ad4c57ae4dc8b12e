// RoutingConfig: everything the effGen router reads — the complexity weights,
// the thresholds τ / τ_H (or a per-model-size profile that sets them), the
// spawn_strategy override and the analyzer's keyword options.
//
// YAML (the effGen O.1 `complexity:` section; the T.4 `routing:` spelling is
// accepted too — pass whichever node holds it). All keys optional:
//   enabled: true                  # false: always SINGLE ("−routing" ablation)
//   threshold: 7.0                 # τ   (alias: complexity_threshold)
//   hierarchical_threshold: 8.5    # τ_H
//   threshold_profile: medium      # tiny|small|medium|large|xl (Table 8) …
//   model_size_b: 1.5              # … or the model's size in billions of params
//   weights: {task_length: 0.15, requirement_count: 0.25, domain_breadth: 0.20,
//             tool_requirements: 0.20, reasoning_depth: 0.20}
//                                  # (alias: num_requirements); must sum to 1 ± 0.01
//   requirement_profile: eq14      # eq14 | paper-example | main-text
//   custom_domains: {name: [keyword, ...]}
//   custom_tool_categories: {name: [phrase, ...]}
//   spawn_strategy: auto           # auto | never | always
//   enable_hierarchical: true      # false: C ≥ τ_H decomposes without a manager
//   enable_sub_agents: true        # false is spawn_strategy: never
//   keywords_file: data/effgen/complexity_keywords.yaml  # absolute, or under the data root
//
// Precedence: a profile (threshold_profile or model_size_b, not both) sets τ
// and τ_H; an explicit threshold / hierarchical_threshold then overrides it.
// JSON configs go through the same function: JSON text is valid YAML, so
// config::parse_yaml() of a JSON document gives the node to pass.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/effgen/routing/complexity_analyzer.hpp"
#include "runtime/effgen/routing/complexity_weights.hpp"
#include "runtime/effgen/routing/keyword_tables.hpp"
#include "runtime/effgen/routing/threshold_profile.hpp"

namespace kaisha::routing {

// effGen sub_agents.spawn_strategy: `automatic` follows the score; `never`
// always answers with a single agent; `always` decomposes at least (and still
// goes hierarchical at C ≥ τ_H).
enum class SpawnStrategy { automatic, never, always };

// "auto", "never", "always".
std::string_view to_string(SpawnStrategy s);

struct RoutingConfig {
  bool enabled = true;
  ComplexityWeights weights;
  double tau = 7.0;
  double tau_h = 8.5;
  std::string threshold_profile;  // tier name that set tau/tau_h; "" = defaults or explicit
  SpawnStrategy spawn_strategy = SpawnStrategy::automatic;
  bool enable_hierarchical = true;
  std::string requirement_profile = "eq14";
  std::vector<KeywordCategory> custom_domains;
  std::vector<KeywordCategory> custom_tool_categories;
  std::string keywords_file;  // "" = default_keyword_tables_path()
  // Accepted-but-deprecated spellings met while parsing, one line each
  // ("config.yaml:4: 'num_requirements' is an alias of 'requirement_count'").
  std::vector<std::string> warnings;

  // Sets tau / tau_h from Table 8 and records the tier in threshold_profile.
  void use_tier(ModelTier tier);

  // Weights valid (ComplexityWeights::validate) and 0 < τ < τ_H ≤ 10.
  Status validate() const;

  // The analyzer options this config implies.
  AnalyzerOptions analyzer_options() const;

  json to_json() const;
};

// Parses and validates. `node` may be Null (all defaults). Errors have code
// "config" and read "<source>:<line>: <key>: <what>", e.g.
// "routing.yaml:3: weights: Complexity weights must sum to 1.0 (got 0.95)".
Result<RoutingConfig> parse_routing_config(const YAML::Node& node, const std::string& source);

}  // namespace kaisha::routing
