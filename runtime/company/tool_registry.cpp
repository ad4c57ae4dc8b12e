#include "runtime/company/tool_registry.hpp"

#include <algorithm>
#include <memory>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/core/params_check.hpp"

namespace kaisha::company {
namespace {

bool granted(const ToolGrant& grant, const std::string& name) { return !grant || grant->count(name) > 0; }

// A model's call gets the checks a JSON-RPC peer's params get, at every depth
// (core/params_check.hpp); the message starts with the tool the model called,
// e.g. "AskAgent: arguments.prompt: expected string, got an integer".
Status check_arguments(const std::string& tool, const json& schema, const json& args) {
  if (!args.is_object()) return Error{"arguments", tool + ": arguments must be a JSON object, got " + json_kind(args)};
  if (Status s = check_params(schema, args, "arguments"); !s.ok())
    return Error{"arguments", tool + ": " + s.error().message};
  return Status::Ok();
}

}  // namespace

Status ToolRegistry::add(Tool tool) {
  if (tool.spec.name.empty()) return Error{"tool", "a tool needs a name"};
  if (!tool.handler) return Error{"tool", "tool " + tool.spec.name + " has no handler"};
  const std::string name = tool.spec.name;
  if (!tools_.count(name)) order_.push_back(name);
  tools_[name] = std::move(tool);
  return Status::Ok();
}

bool ToolRegistry::remove(const std::string& name) {
  if (!tools_.erase(name)) return false;
  order_.erase(std::remove(order_.begin(), order_.end(), name), order_.end());
  return true;
}

const Tool* ToolRegistry::find(const std::string& name) const {
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : &it->second;
}

std::vector<llm::ToolSpec> ToolRegistry::specs(const ToolGrant& grant) const {
  std::vector<llm::ToolSpec> out;
  for (const auto& name : order_)
    if (granted(grant, name)) out.push_back(tools_.at(name).spec);
  return out;
}

void ToolRegistry::invoke(const std::string& name, const std::string& arguments_text, const ToolGrant& grant,
                          ToolDone done) const {
  const Tool* tool = find(name);
  if (!granted(grant, name)) {
    json allowed = json::array();
    for (const auto& n : order_)
      if (granted(grant, n)) allowed.push_back(n);
    done(ToolResult::error("Tool " + name + " is not granted to this agent; it may use: " + allowed.dump(), allowed));
    return;
  }
  if (!tool) {
    done(ToolResult::error(texts::tool_not_found(name)));
    return;
  }
  json args = json::object();
  const bool blank = arguments_text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!blank) {
    args = json::parse(arguments_text, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) {
      done(ToolResult::error("The arguments of " + name +
                             " are not valid JSON. Call the tool again with a JSON object "
                             "matching its parameters. Received: " +
                             arguments_text));
      return;
    }
  }
  if (Status s = check_arguments(name, tool->spec.parameters, args); !s.ok()) {
    done(ToolResult::error(s.error().message));
    return;
  }
  // `done` must run exactly once even when the handler throws, before or
  // after answering: the shared flag makes a second call a no-op.
  auto state = std::make_shared<std::pair<bool, ToolDone>>(false, std::move(done));
  auto once = [state](ToolResult r) {
    if (state->first) return;
    state->first = true;
    state->second(std::move(r));
  };
  try {
    tool->handler(args, once);
  } catch (const std::exception& e) {
    once(ToolResult::error(texts::tool_failed(name), e.what()));
  } catch (...) {
    once(ToolResult::error(texts::tool_failed(name), "unknown exception"));
  }
}

}  // namespace kaisha::company
