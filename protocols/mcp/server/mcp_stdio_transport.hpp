// McpStdioTransport: MCP over a pipe pair (`kaisha serve --mcp-stdio`): one
// JSON-RPC message per line on the input, one per line on the output, nothing
// else on the output (logs go to stderr). One session, which lives as long as
// the input stays open; each line is served in the era it speaks
// (mcp_revision.hpp): a 2026-07-28 request statelessly (its running
// requests and subscriptions still end with notifications/cancelled).
//
// tools/call requests run on their own threads so that ping and
// notifications/cancelled are handled while a long task runs; everything
// else is answered in order. A line that is not JSON, or longer than the
// body limit, is answered with the JSON-RPC error for it and reading goes on.
#pragma once

#include <memory>

#include "protocols/mcp/server/mcp_server.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

class McpStdioTransport {
 public:
  McpStdioTransport(McpServer& server, int in_fd = 0, int out_fd = 1);
  ~McpStdioTransport();

  // Serves until the input reaches EOF, then cancels and waits for running
  // calls. Returns an error only when reading fails.
  Status serve();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
