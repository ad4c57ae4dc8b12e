// The versioned JSON form of a HiVA graph: what a snapshot, `kaisha graphs`
// and an imported graph are.
//
//   {"format": "kaisha.hiva.graph", "version": 3,
//    "agents": [{"id", "role", "prompt", "prompt_version", "tool_code",
//                "tool_description", "tool_version", "alpha", "beta",
//                "visits", "last_update", "last_gradient", "created",
//                "history": [{"task", "success"}, ...],
//                "tool_versions": [{"version", "code_hash", "code"}, ...]}, ...],
//    "edges":  [{"from", "to", "synergy", "alpha", "beta", "uses",
//                "successes", "routed"}, ...],
//    "knowledge_weights": [ω1, ω2, ω3, ω4]}   (only once `kaisha evolve` fitted them)
//
// Promises: graph_from_json(to_json(g)) == g, orders included; an imported
// graph keeps every rule AgentGraph keeps, and has no cycle. Every field is
// required and no other is accepted, but for what a version 1 file lacks
// (an agent's history: none), what a version 2 file lacks (an agent's
// tool_versions: none) and for knowledge_weights. The last of tool_versions
// is the current tool: its "code" is left out (it is tool_code) and its
// version must be tool_version; every code_hash must be its code's; the error names the first fault by its
// path ("agents[2].alpha: expected a number > 0, got a string"). A version
// newer than this kaisha's is refused with the way out. The source and the
// aggregator come first in the graph whatever their place in the file.
// Tool code is not checked here: the caller validates it in the sandbox.
#pragma once

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::hiva {

inline constexpr const char* kGraphFormat = "kaisha.hiva.graph";
inline constexpr int kGraphFormatVersion = 3;  // 2: agents' task history; 3: their tool versions

json to_json(const AgentGraph& graph);

// Error code "hiva_graph".
Result<AgentGraph> graph_from_json(const json& j);

}  // namespace kaisha::hiva
