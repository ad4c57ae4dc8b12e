// The tree of a task of any strategy, known or not, for one that has no
// builder of its own (StrategyInfo::tree) or whose builder failed. Strategies'
// own builders use tree_building.hpp; like them this never throws on a
// payload it does not expect.
#pragma once

#include <vector>

#include "runtime/strategy/task_tree.hpp"

namespace kaisha::strategy {

// One node per agent in order of first appearance, under it that agent's
// asks, answers, tool calls, hires, fires, refusals and errors in order; its
// model calls count in its numbers.
TaskTree generic_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
