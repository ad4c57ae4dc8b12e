// A model's answer to a decomposition prompt (effgen.md §4.3), as plain
// values: the subtasks (runtime/dag/subtask.hpp) and, for the hierarchical
// strategy, the manager's task. parse_decomposition builds it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/dag/subtask.hpp"
#include "runtime/effgen/routing/strategy.hpp"

namespace kaisha::planning {

// The hierarchical prompt's coordinating task: it runs after the workers
// and synthesizes (and quality-checks) their results.
struct ManagerTask {
  std::string description;
  std::vector<std::string> responsibilities;  // e.g. coordinate, synthesize, quality_check
};

// A model's whole answer. For the hierarchical strategy `subtasks` holds the
// worker_subtasks and `manager_task` is set; for the others it holds
// "subtasks" and `manager_task` is empty.
struct Decomposition {
  routing::Strategy strategy = routing::Strategy::hybrid;
  std::vector<Subtask> subtasks;
  std::vector<std::vector<std::string>> parallel_groups;  // hybrid only; advisory (see parser)
  std::optional<ManagerTask> manager_task;                // hierarchical only
  std::string reasoning;                                  // may be empty
};

}  // namespace kaisha::planning
