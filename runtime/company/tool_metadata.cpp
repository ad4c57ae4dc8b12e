#include "runtime/company/tool_metadata.hpp"

namespace kaisha::company {

std::string_view tool_category_name(ToolCategory c) {
  switch (c) {
    case ToolCategory::builtin:
      return "builtin";
    case ToolCategory::sandbox:
      return "sandbox";
    case ToolCategory::created:
      return "created";
    case ToolCategory::mcp:
      return "mcp";
    case ToolCategory::strategy:
      return "strategy";
  }
  return "builtin";
}

std::optional<ToolCategory> parse_tool_category(std::string_view name) {
  for (ToolCategory c :
       {ToolCategory::builtin, ToolCategory::sandbox, ToolCategory::created, ToolCategory::mcp, ToolCategory::strategy})
    if (tool_category_name(c) == name) return c;
  return std::nullopt;
}

ToolCategory category_of_origin(std::string_view origin) {
  if (origin == "user") return ToolCategory::created;
  if (origin.rfind("mcp:", 0) == 0 || origin == "mcp") return ToolCategory::mcp;
  if (origin == "hiva") return ToolCategory::strategy;
  return ToolCategory::builtin;
}

json ToolMetadata::to_json() const {
  json j = json::object();
  j["category"] = std::string(tool_category_name(category));
  j["version"] = version;
  if (!code_hash.empty()) j["code_hash"] = code_hash;
  if (timeout_ms > 0) j["timeout_ms"] = timeout_ms;
  return j;
}

}  // namespace kaisha::company
