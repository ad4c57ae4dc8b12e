// Starting the configured MCP servers (config `mcp_servers:`) when a company
// starts: every server is started at once, then each is waited for (up to
// its connect_timeout_ms), so the CEO's first model call already sees their
// tools. A server that does not come up is reported on stderr and keeps
// being restarted with backoff; its tools appear once it is up.
#pragma once

#include <memory>
#include <vector>

#include "protocols/mcp/mcp_tool_provider.hpp"

namespace kaisha::mcp {

std::vector<std::shared_ptr<McpToolProvider>> start_mcp_servers(const std::vector<config::McpServerConfig>& servers,
                                                                http::HttpClient& http);

}  // namespace kaisha::mcp
