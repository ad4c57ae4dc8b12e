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

// Whether `tool` may run twice with the same arguments to the same effect:
// its spec in data/tools/*.json says "idempotent": true (reading, writing a
// given content to a given file). A call of one that was in flight when its
// process died runs again on a resume; any other tool's — code, shell,
// memories, created and MCP tools — is reported to the task instead
// (docs/durability.md). Read once per process.
bool repeatable_tool(const std::string& tool);

}  // namespace kaisha::company
