// The one JSON type used across kaisha (LLM wire formats, tool arguments,
// tool results, CLI --json output).
#pragma once

#include <nlohmann/json.hpp>

namespace kaisha {
using json = nlohmann::json;
}  // namespace kaisha
