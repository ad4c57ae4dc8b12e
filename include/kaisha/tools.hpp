// kaisha/tools.hpp: tools written in C++ that the CEO and its employees can
// call like kaisha's own (docs/tools.md).
//
// A ToolSource offers tools by their specs (name, description, a JSON Schema
// of the arguments); the company asks for them before each model call, so a
// source may add or drop tools at any time. Arguments reach call() already
// checked against the schema.
// Threading: specs() and cost() may be called from several threads at once
// and must be cheap. call() is made on a company thread and must not block
// it: run slow work on a thread of your own and call `done` exactly once,
// from any thread. Ownership: the company shares the source
// (CompanyOptions::tools) and calls stop() once as it shuts down, before its
// own threads end; calls after stop() may fail.
// Errors: a failed call is ToolResult::error(message), which the model
// reads as the tool's answer; call() must not throw.
#pragma once

#include "runtime/company/tool_result.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha {

using ToolSource = company::ToolSource;
using ToolSpec = llm::ToolSpec;
using ToolResult = company::ToolResult;
using ToolCallContext = company::ToolCallContext;
using ToolCost = company::ToolCost;

}  // namespace kaisha
