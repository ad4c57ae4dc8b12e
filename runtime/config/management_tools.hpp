// The CEO's management tools: hiring, asking, firing, the roster, the cost
// table, the budget and tool creation. Employees can never be granted one —
// the hierarchy has two tiers (hashiru.md §9 item 3) — so a grant naming one
// is refused when the config is read, and a provider grant (`user`) never
// includes ToolCreator/ToolDeletor. MemoryManager is not management but
// writes the CEO's memory: an employee gets it only when granted by name.
//
// Here, below the company layer, because both the config loader (refusing
// such a grant with its file and line) and company/tool_grants (filtering
// provider grants) apply these rules, and the company layer already reads
// the config's types.
#pragma once

#include <string>

namespace kaisha::config {

inline bool is_management_tool(const std::string& name) {
  for (const char* t : {"AgentCreator", "AskAgent", "FireAgent", "GetAgents", "AgentCostManager", "GetBudget",
                        "ToolCreator", "ToolDeletor"})
    if (name == t) return true;
  return false;
}

// Tools a provider grant (`memory`, `builtin`, ...) does not bring along:
// they must be named.
inline bool needs_grant_by_name(const std::string& name) { return name == "MemoryManager"; }

}  // namespace kaisha::config
