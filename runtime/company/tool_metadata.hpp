// ToolMetadata: what kaisha knows about a tool besides its spec — the kind of
// tool it is, the version of its code that runs, and how long a call may
// take — the same type for every source (built-in, sandboxed, created, MCP,
// a strategy's own). A source says it per tool (ToolSource::metadata); the
// registry keeps it beside the spec, the journal's tool_call steps carry it,
// and the failure handling (tool_failure.hpp, tool_health.hpp) reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha::company {

enum class ToolCategory {
  builtin,   // compiled into kaisha (files, web, calculator, memories, AskUser)
  sandbox,   // Python shipped with kaisha, run in the sandbox
  created,   // Python the CEO wrote with ToolCreator, run in the sandbox
  mcp,       // a tool of an MCP server
  strategy,  // a strategy's own tool, run by its driver (HiVA's agent tools)
};

// "builtin", "sandbox", "created", "mcp", "strategy".
std::string_view tool_category_name(ToolCategory c);
std::optional<ToolCategory> parse_tool_category(std::string_view name);

// The category a source's origin implies when the source says nothing more:
// "user" -> created, "mcp:<server>" -> mcp, "hiva" (a strategy) -> strategy,
// anything else -> builtin.
ToolCategory category_of_origin(std::string_view origin);

struct ToolMetadata {
  ToolCategory category = ToolCategory::builtin;
  // The version of the code that runs: 1 for a tool whose code never
  // changed, counted up by ToolVersions (tool_versions.hpp) as it is
  // rewritten.
  int version = 1;
  std::string code_hash;   // of the code that runs ("" = compiled in, or not known)
  int64_t timeout_ms = 0;  // how long one call may take (0 = the source's own limit, none declared)

  bool operator==(const ToolMetadata&) const = default;
  // {"category", "version", "code_hash"?, "timeout_ms"?}
  json to_json() const;
};

}  // namespace kaisha::company
