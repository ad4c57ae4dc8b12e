#include "runtime/dag/subtask_dag.hpp"

#include <algorithm>
#include <map>

namespace kaisha::planning {
namespace {

std::string numbered(size_t i) { return "subtask #" + std::to_string(i + 1); }

// Depth-first search for a cycle, in input order so the cycle reported is
// always the same one. Returns the cycle as ids, first id repeated at the end.
std::vector<std::string> find_cycle(const std::vector<Subtask>& subtasks,
                                    const std::vector<std::vector<size_t>>& deps) {
  enum Color { white, grey, black };
  std::vector<Color> color(subtasks.size(), white);
  std::vector<size_t> stack;  // the current path, each entry depends on the next

  struct Frame {
    size_t node;
    size_t next_dep;
  };
  for (size_t root = 0; root < subtasks.size(); ++root) {
    if (color[root] != white) continue;
    std::vector<Frame> frames{{root, 0}};
    color[root] = grey;
    stack = {root};
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.next_dep == deps[f.node].size()) {
        color[f.node] = black;
        frames.pop_back();
        stack.pop_back();
        continue;
      }
      size_t d = deps[f.node][f.next_dep++];
      if (color[d] == grey) {
        auto from = std::find(stack.begin(), stack.end(), d);
        std::vector<std::string> cycle;
        for (auto it = from; it != stack.end(); ++it) cycle.push_back(subtasks[*it].id);
        cycle.push_back(subtasks[d].id);
        return cycle;
      }
      if (color[d] == white) {
        color[d] = grey;
        frames.push_back({d, 0});
        stack.push_back(d);
      }
    }
  }
  return {};
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// Resolves depends_on to indices (duplicates merged), collecting problems.
std::vector<std::vector<size_t>> resolve(const std::vector<Subtask>& subtasks, std::vector<std::string>& problems) {
  std::map<std::string, size_t> first_use;
  for (size_t i = 0; i < subtasks.size(); ++i) {
    const std::string& id = subtasks[i].id;
    if (id.empty()) {
      problems.push_back(numbered(i) + ": id is empty");
      continue;
    }
    auto [it, fresh] = first_use.emplace(id, i);
    if (!fresh)
      problems.push_back(numbered(i) + ": duplicate id '" + id + "' (first used by " + numbered(it->second) + ")");
  }
  std::vector<std::vector<size_t>> deps(subtasks.size());
  for (size_t i = 0; i < subtasks.size(); ++i) {
    for (const std::string& d : subtasks[i].depends_on) {
      auto it = first_use.find(d);
      if (it == first_use.end()) {
        problems.push_back(numbered(i) + ": depends_on refers to unknown id '" + d + "'");
      } else if (it->second == i) {
        problems.push_back(numbered(i) + ": depends on itself ('" + d + "')");
      } else if (std::find(deps[i].begin(), deps[i].end(), it->second) == deps[i].end()) {
        deps[i].push_back(it->second);
      }
    }
  }
  return deps;
}

}  // namespace

const char* to_string(DagShape s) {
  switch (s) {
    case DagShape::parallel:
      return "parallel";
    case DagShape::sequential:
      return "sequential";
    case DagShape::hybrid:
      return "hybrid";
  }
  return "?";
}

Status validate_subtasks(const std::vector<Subtask>& subtasks) {
  std::vector<std::string> problems;
  auto deps = resolve(subtasks, problems);
  // A cycle is only meaningful once every id and edge is known.
  if (problems.empty()) {
    auto cycle = find_cycle(subtasks, deps);
    if (!cycle.empty()) problems.push_back("dependency cycle: " + join(cycle, " → ") + " (each depends on the next)");
  }
  if (problems.empty()) return Status::Ok();
  return Error{"decomposition", join(problems, "; ")};
}

Result<SubtaskDag> SubtaskDag::build(std::vector<Subtask> subtasks) {
  if (Status s = validate_subtasks(subtasks); !s) return s.error();
  std::vector<std::string> unused;
  SubtaskDag dag;
  dag.preds_ = resolve(subtasks, unused);
  dag.subtasks_ = std::move(subtasks);
  const size_t n = dag.subtasks_.size();
  dag.succs_.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    // Keep depends_on free of repeats, as promised.
    dag.subtasks_[i].depends_on.clear();
    for (size_t p : dag.preds_[i]) {
      dag.subtasks_[i].depends_on.push_back(dag.subtasks_[p].id);
      dag.succs_[p].push_back(i);
      ++dag.edges_;
    }
  }
  for (auto& s : dag.succs_) std::sort(s.begin(), s.end());

  // Levels by longest path from a source. Acyclic, so repeated relaxation in
  // passes over the input order settles in at most n passes.
  dag.level_of_.assign(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      for (size_t p : dag.preds_[i]) {
        if (dag.level_of_[i] < dag.level_of_[p] + 1) {
          dag.level_of_[i] = dag.level_of_[p] + 1;
          changed = true;
        }
      }
    }
  }
  size_t depth = n == 0 ? 0 : *std::max_element(dag.level_of_.begin(), dag.level_of_.end()) + 1;
  dag.levels_.assign(depth, {});
  for (size_t i = 0; i < n; ++i) dag.levels_[dag.level_of_[i]].push_back(i);

  // One subtask per level means exactly one order is possible: a chain (with
  // at most some redundant shortcut edges, which change nothing at run time).
  if (dag.edges_ == 0)
    dag.shape_ = DagShape::parallel;
  else if (std::all_of(dag.levels_.begin(), dag.levels_.end(), [](const auto& l) { return l.size() == 1; }))
    dag.shape_ = DagShape::sequential;
  else
    dag.shape_ = DagShape::hybrid;
  return dag;
}

std::optional<size_t> SubtaskDag::index_of(std::string_view id) const {
  for (size_t i = 0; i < subtasks_.size(); ++i)
    if (subtasks_[i].id == id) return i;
  return std::nullopt;
}

std::vector<size_t> SubtaskDag::topological_order() const {
  std::vector<size_t> order;
  for (const auto& level : levels_) order.insert(order.end(), level.begin(), level.end());
  return order;
}

std::vector<size_t> SubtaskDag::sinks() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < succs_.size(); ++i)
    if (succs_[i].empty()) out.push_back(i);
  return out;
}

}  // namespace kaisha::planning
