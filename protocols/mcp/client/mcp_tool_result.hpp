// How an MCP CallToolResult becomes kaisha's ToolResult envelope:
//   * the text blocks, joined, are the message (what the model reads first);
//   * structuredContent, when present, is the output; otherwise non-text
//     blocks (images, audio, resources, links) are the output, with base64
//     payloads replaced by their size so a picture does not flood the
//     model's context;
//   * isError: true makes an error result whose message is the tool's text.
// A result that is not a CallToolResult is an error naming what was wrong.
#pragma once

#include <string>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::mcp {

company::ToolResult to_tool_result(const std::string& server, const std::string& tool, const json& call_result);

}  // namespace kaisha::mcp
