// Starting the configured MCP servers (config `mcp_servers:`) for a company:
// the CLI does it and hands the sources to the company runtime with its
// RuntimeOptions::tool_sources. Every server is started at once, then each
// is waited for (up to its connect_timeout_ms), so the CEO's first model call
// already sees their tools. A server that does not come up is reported on
// stderr and keeps being restarted with backoff; its tools appear once it is
// up. The runtime stops them (ToolSource::stop) before its actors.
#pragma once

#include <memory>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/config/mcp_server_config.hpp"

namespace kaisha::mcp {

// One McpToolSource per server (none, and no HTTP loop, for an empty
// list). The HTTP loop their connections and timers use is their own: it
// lives until the last of the returned sources is released.
std::vector<std::shared_ptr<company::ToolSource>> start_mcp_servers(
    const std::vector<config::McpServerConfig>& servers);

}  // namespace kaisha::mcp
