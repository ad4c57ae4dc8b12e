// Checks tool-call arguments against the JSON Schema subset tool parameters
// use: an object with typed properties, required keys and enums. Enough to
// turn a model's wrong call into an error it can act on before the tool runs.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::company {

// Returns ok, or an Error whose message names the tool and the offending
// parameter, e.g. "AskAgent: missing required parameter 'prompt'".
Status check_arguments(const std::string& tool, const json& schema, const json& args);

}  // namespace kaisha::company
