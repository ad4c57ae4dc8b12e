// Reading a model's answer to one of the four decomposition prompts
// (effgen.md §4.3) into a Decomposition.
//
// Strict by design: the answer's JSON (found as json_extract.hpp describes)
// must have the shape the strategy's prompt asked for. The caller sends the
// error text back to the model for one retry and otherwise falls back to a
// single agent (effgen.md §23 item 20; see DecompositionRound), so errors
// say exactly what is wrong and where, and list every problem found.
//
// Shapes accepted:
//  parallel / sequential / hybrid:
//    {"subtasks": [ITEM, ...], "parallel_groups": [[id, ...], ...]?, "reasoning": "..."?}
//  hierarchical:
//    {"manager_task": {"description": "...", "responsibilities": ["..."]?},
//     "worker_subtasks": [ITEM, ...], "reasoning": "..."?}
//  ITEM: {"id": "st_1", "description": "...",            (required, non-empty strings)
//         "depends_on": ["st_0", ...]?, "expected_output": "..."?,
//         "estimated_complexity": number in [0, 10]?,      (default 5.0)
//         "required_specialization": one of kSpecializations?, (default "general")
//         "priority": "high"|"medium"|"low" (any case)?,   (default medium)
//         "reports_to": "manager" or a worker id?}         (hierarchical only)
// Keys not listed are ignored. Whatever the prompt, depends_on is honoured:
// the graph's real shape (SubtaskDag::shape) decides how the plan runs, so a
// "parallel" answer that declares a dependency is not an error.
// parallel_groups is advisory: its ids must exist, but depends_on decides
// the order.
#pragma once

#include <cstddef>
#include <string_view>

#include "runtime/core/result.hpp"
#include "runtime/effgen/decomposition/decomposition.hpp"

namespace kaisha::planning {

struct DecompositionLimits {
  size_t min_subtasks = 2;  // effgen.md §4.2: 2–5 subtasks
  size_t max_subtasks = 5;
};

// Error code "decomposition" (or "json" when no JSON could be read). The
// returned subtasks also pass validate_subtasks (ids, dependencies, cycles).
Result<Decomposition> parse_decomposition(std::string_view answer, routing::Strategy strategy,
                                          const DecompositionLimits& limits = {});

}  // namespace kaisha::planning
