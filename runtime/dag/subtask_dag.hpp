// SubtaskDag is a validated dependency graph over a decomposition's subtasks
// (effgen.md §4.1: an edge s_i → s_j means s_j consumes s_i's output).
//
// Promises, once built:
//  - ids are non-empty and unique; every depends_on names another subtask;
//  - there is no cycle, so topological levels exist;
//  - indices are the subtasks' positions in the model's answer, and every
//    list below is ordered by them, so results are deterministic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/dag/subtask.hpp"

namespace kaisha::planning {

// The execution shape read off the graph (effgen.md §4.3 [I], option 3):
// no edges → parallel; exactly one possible order → sequential; else hybrid.
enum class DagShape { parallel, sequential, hybrid };

const char* to_string(DagShape s);

// Checks ids and dependencies without building a graph. All problems found
// are reported at once (joined by "; "), so that the model can fix them in
// its one retry. Error code "decomposition"; wording, e.g.:
//   "subtask #3: depends_on refers to unknown id 'x'"
//   "subtask #2: duplicate id 'st_1' (first used by subtask #1)"
//   "dependency cycle: st_1 → st_2 → st_1 (each depends on the next)"
// Subtasks are numbered from 1 in the order the model gave them.
Status validate_subtasks(const std::vector<Subtask>& subtasks);

class SubtaskDag {
 public:
  // Validates (see validate_subtasks) and builds. Repeated ids inside one
  // depends_on are merged: they carry no meaning and are harmless.
  static Result<SubtaskDag> build(std::vector<Subtask> subtasks);

  size_t size() const { return subtasks_.size(); }
  const std::vector<Subtask>& subtasks() const { return subtasks_; }
  const Subtask& at(size_t i) const { return subtasks_[i]; }
  std::optional<size_t> index_of(std::string_view id) const;

  // Direct dependencies of subtask i, in its depends_on order.
  const std::vector<size_t>& predecessors(size_t i) const { return preds_[i]; }
  // Subtasks that directly depend on i, ascending.
  const std::vector<size_t>& successors(size_t i) const { return succs_[i]; }
  size_t edge_count() const { return edges_; }

  DagShape shape() const { return shape_; }

  // levels()[0] holds the subtasks without dependencies; a subtask is one
  // level after its deepest dependency. Within a level: ascending index.
  const std::vector<std::vector<size_t>>& levels() const { return levels_; }
  size_t level_of(size_t i) const { return level_of_[i]; }
  // The levels flattened: every subtask comes after all its dependencies.
  std::vector<size_t> topological_order() const;

  // Subtasks no other subtask depends on (the chain's end when sequential).
  std::vector<size_t> sinks() const;

 private:
  SubtaskDag() = default;

  std::vector<Subtask> subtasks_;
  std::vector<std::vector<size_t>> preds_;
  std::vector<std::vector<size_t>> succs_;
  std::vector<std::vector<size_t>> levels_;
  std::vector<size_t> level_of_;
  size_t edges_ = 0;
  DagShape shape_ = DagShape::parallel;
};

}  // namespace kaisha::planning
