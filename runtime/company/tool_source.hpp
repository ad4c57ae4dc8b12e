// ToolSource is a source of tools outside the CEO actor: the built-in file,
// web, calculator and code tools, tools the CEO created (ToolCreator), tools
// of MCP servers. The CEO asks every source for its specs before each model
// call, so a tool added or removed by a source is visible on the next call
// with no restart, and registers them in its ToolRegistry (grants and schema
// checks apply as for any tool).
//
// call() must not block the caller: the CEO calls it on an actor thread.
// Sources run blocking work (child processes, file I/O) on their own
// threads and call `done` exactly once, from any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/company/tool_cost.hpp"
#include "runtime/company/tool_metadata.hpp"
#include "runtime/company/tool_result.hpp"
#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/json.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::company {

// Who is calling: the tools may confine themselves to the task's workspace.
struct ToolCallContext {
  std::string session_id;
  std::string task_id;
  std::string agent;  // "CEO" or an employee's name
  // The pyramid's tools: the branch of the task's directory the call works
  // in (a candidate model's copy; "" = the directory itself).
  std::string branch;
  // The W3C traceparent of the tool call's span ("" when tracing is off):
  // a source that calls out (MCP's _meta.traceparent) passes it on.
  std::string trace;
};

class ToolSource {
 public:
  virtual ~ToolSource() = default;
  // Short name for journals and errors: "builtin", "user", "mcp:<server>".
  virtual std::string origin() const = 0;
  // The tools offered now. Thread-safe; cheap (called before each model call).
  virtual std::vector<llm::ToolSpec> specs() const = 0;
  // Runs tool `name` with schema-checked `args`; `done` is called once, from
  // any thread.
  virtual void call(const std::string& name, const json& args, const ToolCallContext& ctx,
                    std::function<void(ToolResult)> done) = 0;
  // What one call of `name` costs, as the tool declares it (free by default).
  // The caller reserves it on the ledgers before call() and settles it after;
  // the config's tools.costs overrides it. Thread-safe.
  virtual ToolCost cost(const std::string& name) const {
    (void)name;
    return {};
  }
  // Whether a call of `name` may run twice with the same arguments to the
  // same effect, so that one in flight when its process died runs again on
  // a resume (docs/durability.md); otherwise the task is told it was not
  // run again. By default what the tool's spec file says (repeatable_tool).
  virtual bool repeatable(const std::string& name) const { return repeatable_tool(name); }
  // What kind of tool `name` is, the version of its code and its timeout
  // (tool_metadata.hpp). By default the category its origin implies,
  // version 1, no timeout declared. Thread-safe; cheap.
  virtual ToolMetadata metadata(const std::string& name) const {
    (void)name;
    ToolMetadata m;
    m.category = category_of_origin(origin());
    return m;
  }
  // Called once when the company stops, before its actors do, so that calls
  // still running end while their askers can take the answer. Sources with
  // processes or connections end them here; calls after stop() may fail.
  virtual void stop() {}
};

}  // namespace kaisha::company
