// An employee's kept ask steps (driver/ask_step.hpp) as its tool loop's
// outcomes (tool_loop_driver.hpp), so that a resumed ask is replayed like a
// strategy's task: a new driver is fed them under driver::ResumePolicy.
// Step n answers the loop's effect n + 1: a model step a CallModel, a tool
// step a RunTool.
#pragma once

#include <string>
#include <vector>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/result.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/replay_log.hpp"

namespace kaisha::employee {

// The steps' texts read in their order, up to the first that cannot be read
// (the rest runs again, as if it had not been kept).
std::vector<driver::AskStep> read_kept_steps(const std::vector<std::string>& texts);

// The outcome step `steps[n]` stands for, with id n + 1.
driver::Outcome kept_outcome(const driver::AskStep& step, size_t n);

// The replay log of the loop's kept steps.
Result<driver::ReplayLog> kept_log(const std::vector<driver::AskStep>& steps);

// A tool result given back from its JSON form (ToolResult::to_json), so that
// it reads the same again.
company::ToolResult tool_result_from(const json& j);

}  // namespace kaisha::employee
