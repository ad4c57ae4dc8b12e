// Each strategy's builder of a task's tree from its journal steps (see
// task_tree.hpp). The catalog (strategy_catalog.cpp) points at these; the
// command line reaches them through build_task_tree(). Every builder takes
// the steps in journal order, never throws on a payload it does not expect,
// and shows a step it does not understand as a plain step (plain_step()).
#pragma once

#include <vector>

#include "runtime/strategy/task_tree.hpp"

namespace kaisha::strategy {

// hashiru: the CEO's turns; under each, the tools it called, its asks to
// employees (and under those the employees' own tool calls), hires, fires.
TaskTree hashiru_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

// effgen: routing, the decomposition call, the plan with one node per subtask
// (the worker that ran it, its attempts, the judge's verdicts), synthesis.
TaskTree effgen_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

// pyramid: the call tree, each agent's call under the call that called it as
// a tool, with its level-0 tool calls and the judge's audits.
TaskTree pyramid_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

// Any strategy, known or not: one node per agent in order of first
// appearance, under it that agent's asks, answers, tool calls, hires, fires,
// refusals and errors in order; its model calls count in its numbers.
TaskTree generic_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
