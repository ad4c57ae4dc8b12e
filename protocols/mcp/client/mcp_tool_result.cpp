#include "protocols/mcp/client/mcp_tool_result.hpp"

namespace kaisha::mcp {
namespace {

// A content block without its bulky payload.
json compact(const json& block) {
  json b = block;
  if (b.is_object()) {
    for (const char* key : {"data", "blob"}) {
      if (b.contains(key) && b[key].is_string())
        b[key] = "<" + std::to_string(b[key].get<std::string>().size()) + " base64 characters>";
    }
    if (b.contains("resource") && b["resource"].is_object() && b["resource"].contains("blob"))
      b["resource"] = compact(b["resource"]);
  }
  return b;
}

}  // namespace

company::ToolResult to_tool_result(const std::string& server, const std::string& tool, const json& r) {
  const std::string who = "MCP tool '" + tool + "' of server '" + server + "'";
  if (!r.is_object())
    return company::ToolResult::error(who + " returned something that is not a CallToolResult object");
  std::string text;
  json others = json::array();
  if (auto c = r.find("content"); c != r.end()) {
    if (!c->is_array()) return company::ToolResult::error(who + " returned \"content\" that is not an array");
    for (const auto& block : *c) {
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
          block["text"].is_string()) {
        if (!text.empty()) text += "\n";
        text += block["text"].get<std::string>();
      } else {
        others.push_back(compact(block));
      }
    }
  }
  json output = nullptr;
  if (auto s = r.find("structuredContent"); s != r.end() && !s->is_null())
    output = *s;
  else if (!others.empty())
    output = others;
  if (r.value("isError", false))
    return company::ToolResult::error(who + " reported an error: " + (text.empty() ? "(no message)" : text), output);
  if (text.empty()) text = output.is_null() ? who + " returned nothing" : who + " returned structured output";
  return company::ToolResult::success(text, output);
}

}  // namespace kaisha::mcp
