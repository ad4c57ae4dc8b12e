#include "runtime/effgen/decomposition/subagent_limits.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace kaisha::planning {

Status validate(const SubAgentLimits& l) {
  if (l.max_depth < 1 || l.max_depth > 5)
    return Error{"config", "sub_agents.max_depth must be in 1–5, got " + std::to_string(l.max_depth)};
  if (l.max_concurrent < 1 || l.max_concurrent > 20)
    return Error{"config", "sub_agents.max_concurrent must be in 1–20, got " + std::to_string(l.max_concurrent)};
  if (!(l.timeout_fraction >= 0.1 && l.timeout_fraction <= 1.0))
    return Error{"config", "sub_agents.timeout_fraction must be in 0.1–1.0, got " + std::to_string(l.timeout_fraction)};
  if (!(l.max_iterations_fraction > 0.0 && l.max_iterations_fraction <= 1.0))
    return Error{"config", "sub_agents.max_iterations_fraction must be in (0, 1], got " +
                               std::to_string(l.max_iterations_fraction)};
  return Status::Ok();
}

bool may_spawn(int depth, const SubAgentLimits& limits) { return depth < limits.max_depth; }

size_t concurrency(size_t n_subtasks, const SubAgentLimits& limits) {
  return std::max<size_t>(1, std::min(n_subtasks, limits.max_concurrent));
}

AgentBudget child_budget(const AgentBudget& parent, size_t n_subtasks, const SubAgentLimits& limits) {
  AgentBudget child;
  child.max_iterations =
      std::max(1, static_cast<int>(std::floor(parent.max_iterations * limits.max_iterations_fraction)));
  if (limits.divide_timeout_by_n) {
    child.timeout = parent.timeout / static_cast<long>(std::max<size_t>(1, n_subtasks));
  } else {
    child.timeout = std::chrono::milliseconds(
        static_cast<long long>(std::llround(static_cast<double>(parent.timeout.count()) * limits.timeout_fraction)));
  }
  return child;
}

}  // namespace kaisha::planning
