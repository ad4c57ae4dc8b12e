// ToolRegistry holds the tools agents may call: each tool's spec (name,
// description, JSON Schema parameters) as the model sees it, and the handler
// that runs it. Built-in CEO tools, created tools and tools from MCP servers
// all register here; an agent sees and may call only the tools granted to it.
//
// Handlers are asynchronous: they receive parsed, schema-checked arguments and
// a `done` callback that must be called exactly once. A handler that throws
// is reported to the model as "Tool `X` failed to run." with the exception
// text, never as a crash. Not thread-safe: owned by one actor.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/company/tool_cost.hpp"
#include "runtime/company/tool_metadata.hpp"
#include "runtime/company/tool_result.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::company {

using ToolDone = std::function<void(ToolResult)>;
using ToolHandler = std::function<void(const json& args, ToolDone done)>;

struct Tool {
  llm::ToolSpec spec;
  ToolHandler handler;
  std::string origin = "builtin";  // "builtin" | "user" | "mcp:<server>"
  ToolCost cost;                   // declared per-call cost; charged by whoever runs the handler
  ToolMetadata meta;               // its source's say: category, version, timeout
};

// Which tools an agent may use. An empty optional means "all registered tools".
using ToolGrant = std::optional<std::set<std::string>>;

class ToolRegistry {
 public:
  // Adds or replaces a tool. Refuses a spec without a name.
  Status add(Tool tool);
  bool remove(const std::string& name);
  const Tool* find(const std::string& name) const;
  size_t size() const { return tools_.size(); }

  // Specs visible to an agent with `grant`, in registration order.
  std::vector<llm::ToolSpec> specs(const ToolGrant& grant = std::nullopt) const;

  // Parses `arguments_text`, checks grant and schema, and runs the handler.
  // Every failure before the handler runs is reported through `done` as an
  // error ToolResult whose message tells the model what to fix. Under a
  // grant, any tool outside it — registered or not — gets the error listing
  // the tools the agent may use.
  void invoke(const std::string& name, const std::string& arguments_text, const ToolGrant& grant, ToolDone done) const;

 private:
  std::map<std::string, Tool> tools_;
  std::vector<std::string> order_;
};

}  // namespace kaisha::company
