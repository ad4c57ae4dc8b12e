// The effgen strategy's section of a config file (effgen.md §23): its
// models and how many subtasks run at once. Its `routing:` and `optimizer:`
// subsections are read by their own parsers (runtime/effgen/routing,
// runtime/effgen/prompt_optimizer); the judge's settings are in `judge:`.
#pragma once

#include <any>
#include <string>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::effgen {

// The config section's name.
inline constexpr const char* kSection = "effgen";

struct EffgenConfig {
  std::string planner_model;    // model ref; "" = ceo.model
  std::string worker_model;     // cost-table name or model ref; "" = the planner's model
  int max_concurrent = 5;       // subtasks running at once
  int max_subtask_retries = 1;  // re-runs of a failed subtask
};

// `section` (null or undefined: the defaults) as an EffgenConfig. Errors are
// "<file>:<line>: effgen.<key>: <what>".
Result<EffgenConfig> read_effgen_config(const YAML::Node& section, const config::YamlReader& reader);

// read_effgen_config as the catalog entry's read_settings.
Result<std::any> read_effgen_settings(const YAML::Node& section, const config::YamlReader& reader);

}  // namespace kaisha::effgen
