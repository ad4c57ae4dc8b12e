// Paths as InfiHelper's verbatim prompts spell them. Its prompts (kept word
// for word in examples/pyramid/infihelper.yaml) tell agents to write under
// "workspace/tasks/{task_id}/...": relative to the root of the authors'
// system, while kaisha's pyramid tools take paths relative to the task's
// directory. A model that obeys the prompt would make a nested copy
// "workspace/tasks/<id>/..." inside the task's directory. So a path whose
// first components are workspace/tasks/<this task> — the task's id, or the
// placeholder as the prompts spell it ("{task_id}", "task_id") — loses that
// prefix (with a leading "./" or "/"). Any other path, another task's
// included, is left exactly as it is, for the file view to judge.
#pragma once

#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::tools {

std::string task_relative_path(const std::string& path, const std::string& task_id);

// `args` of a pyramid file tool with every path argument (file_path, path,
// dir_path, source, destination and the strings of "paths") made
// task-relative; other keys are kept as they are.
json task_relative_arguments(const json& args, const std::string& task_id);

}  // namespace kaisha::tools
