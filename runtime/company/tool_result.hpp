// The uniform result of every tool call (hashiru.md §9 item 37):
// {"status": "success"|"error", "message": str, "output": any}, plus optional
// extra top-level keys some HASHIRU tools return (remaining budgets).
#pragma once

#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::company {

struct ToolResult {
  bool ok = true;
  std::string message;
  json output;                  // null when the tool has no output
  json extra = json::object();  // merged into the top level of to_json()

  static ToolResult success(std::string message, json output = nullptr) {
    return ToolResult{true, std::move(message), std::move(output), json::object()};
  }
  static ToolResult error(std::string message, json output = nullptr) {
    return ToolResult{false, std::move(message), std::move(output), json::object()};
  }

  json to_json() const {
    json j = extra.is_object() ? extra : json::object();
    j["status"] = ok ? "success" : "error";
    j["message"] = message;
    j["output"] = output;
    return j;
  }
};

}  // namespace kaisha::company
