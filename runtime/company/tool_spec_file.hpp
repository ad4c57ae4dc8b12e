// Tool specs kept as data: a JSON array of {name, description, parameters}
// (data/tools/*.json), read by every tool source (CEO tools, built-ins,
// created-tool tools, MemoryManager).
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::company {

// Errors name the file and, for a spec without a name, its position.
Result<std::vector<llm::ToolSpec>> load_tool_specs(const std::string& path);

}  // namespace kaisha::company
