// The pyramid strategy's section of a config file (InfiAgent,
// infiagent.md §10): its agent library and how its calls are bounded and
// audited.
#pragma once

#include <any>
#include <cstdint>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::pyramid {

// The config section's name.
inline constexpr const char* kSection = "pyramid";

struct PyramidConfig {
  std::string library;           // the agent library's YAML file (required for `--strategy pyramid`)
  std::string model;             // agents without a model of their own; "" = ceo.model
  std::string entry;             // every task enters here; "" = the router chooses
  double route_threshold = 0.1;  // below it the task goes to the top agent as a new task
  // Scores this close to the best are a tie, decided by Q, level and name.
  double route_tie_tolerance = 0.01;
  // How the router scores agents: "embedding" (cosine similarity of the
  // descriptions), "model" (router_model scores each) or "both" (the mean).
  std::string router = "embedding";
  std::string router_model;     // model ref; "" = pyramid.model
  bool enforce_judge = true;    // the judge audits every success nobody had it check
  int max_judge_retries = 3;    // retries after a rejection (4 audits)
  int max_nudges = 5;           // reminders to a turn that calls no tool
  int max_calls_per_turn = 10;  // tool calls run from one model turn; the rest are answered "not run"
  int max_final_output_retries = 3;
  int64_t index_budget_tokens = 2000;  // C_LM: the workspace index in every prompt
  int64_t env_budget_tokens = 120000;  // τ: a call's conversation is compressed past it (0: never)
  double poor_quality = 0.3;           // an agent whose Q falls below it raises a "poor performance" trigger
  double quality_alpha = 0.8;          // Q <- alpha * Q + (1 - alpha) * verdict
  double quality_initial = 0.5;        // an agent's Q before its first verdict
  // Text passed inline between agents (a task_input, a final_output's
  // output), in bytes; more must go in a file, passed by its path.
  int64_t max_inline_bytes = 16384;
  // Audits in a row the judge may fail to rule on before the call ends.
  int max_judge_failures = 2;
  // pyramid.evolution: which candidate models stay in an agent's pool.
  struct Evolution {
    bool prune = true;         // off: every candidate always runs
    int window = 10;           // verdicts and calls a candidate is judged on
    double prune_below = 0.3;  // a windowed Q below it leaves the pool
    int min_verdicts = 5;      // verdicts in the window before a candidate can be pruned
    double dominance = 0.8;    // share of the window's calls answered that makes a candidate the default
    int min_calls = 5;         // calls in the window before a default is chosen
  } evolution;
  // pyramid.training: the program `kaisha pyramid train` runs once per
  // candidate model of an agent, with the agent's exported D(B_main).
  struct Training {
    // argv; "{model}", "{dataset}", "{agent}" and "{sha256}" in an argument
    // are replaced. Empty: no trainer is configured.
    std::vector<std::string> command;
    int64_t timeout_ms = 3600000;  // one run's wall clock
  } training;
};

// `section` (null or undefined: the defaults) as a PyramidConfig. Errors are
// "<file>:<line>: pyramid.<key>: <what>".
Result<PyramidConfig> read_pyramid_config(const YAML::Node& section, const config::YamlReader& reader);

// read_pyramid_config as the catalog entry's read_settings.
Result<std::any> read_pyramid_settings(const YAML::Node& section, const config::YamlReader& reader);

}  // namespace kaisha::pyramid
