// The span of one tool call, "execute_tool {tool}" in the GenAI semantic
// conventions, for every place that runs tools (an employee's tool loop, a
// strategy driver's RunTool). Null when tracing is off.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/company/tool_result.hpp"
#include "runtime/telemetry/span.hpp"

namespace kaisha::telemetry {

// Started now, under `parent` (a traceparent) or else the task's root.
std::shared_ptr<Span> tool_span(const std::string& tool, const std::string& call_id, std::string_view parent,
                                std::string_view task_id);
// Ends it with the tool's outcome (an error status with its message when it failed).
void end_tool_span(Span& span, const company::ToolResult& result);

}  // namespace kaisha::telemetry
