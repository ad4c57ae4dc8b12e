// YAML to JSON for parts of a config or script that are handed on as data (a
// registered strategy's config section, the mock LLM's replies).
#pragma once

#include <yaml-cpp/yaml.h>

#include "runtime/core/json.hpp"

namespace kaisha::config {

// `node` as JSON. Plain scalars keep their YAML types (numbers, true/false,
// null/~); quoted scalars are always strings; map keys are strings.
json yaml_to_json(const YAML::Node& node);

}  // namespace kaisha::config
