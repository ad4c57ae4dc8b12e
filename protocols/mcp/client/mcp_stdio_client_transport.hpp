// McpStdioClientTransport: an MCP server run as a child process, one JSON-RPC
// message per line on its stdin and stdout (the MCP stdio transport, the same in
// 2025-11-25 and 2026-07-28).
// One I/O thread per server polls the pipes: writes never block the caller,
// a server that stops reading only grows the queue. The server's stderr is
// its log: appended to `stderr_log` when set, and its last lines are quoted
// in the error when the server exits.
//
// A stdout line that is not JSON is reported through on_malformed and
// skipped; a line longer than max_line_bytes likewise. When stdout closes
// the process is reaped and on_closed says how it ended. close() closes the
// server's stdin, then SIGTERM, then SIGKILL (ChildProcess::terminate).
#pragma once

#include <memory>
#include <string>

#include "protocols/mcp/client/child_process.hpp"
#include "protocols/mcp/client/mcp_client_transport.hpp"

namespace kaisha::mcp {

struct McpStdioClientOptions {
  std::string stderr_log;             // "" = keep only the tail in memory
  size_t max_line_bytes = 16u << 20;  // a longer stdout line is dropped as malformed
  int64_t shutdown_grace_ms = 1000;   // per step of terminate()
};

class McpStdioClientTransport : public McpClientTransport {
 public:
  McpStdioClientTransport(ChildSpec spec, McpStdioClientOptions options = {});
  ~McpStdioClientTransport() override;

  Status start(Handlers handlers) override;
  void send(const json& message) override;
  void set_protocol_version(const std::string&) override {}
  // A legacy stdio server may ignore server/discover (a request before
  // initialize) instead of refusing it: 2 s, not the HTTP 10 s, before the
  // client falls back to initialize.
  int64_t discover_timeout_ms() const override { return 2'000; }
  void close() override;
  std::string describe() const override;

  // The child's pid while it runs (tests kill it), else -1.
  int pid() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
