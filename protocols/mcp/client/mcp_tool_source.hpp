// McpToolSource: the tools of one configured MCP server as a
// company::ToolSource (origin "mcp:<server>"), so they reach the CEO's tool
// registry and, through employee grants, employees.
//
//   * Tool names are "<tool_prefix><tool>" (default "<server>__<tool>"), so
//     two servers' tools cannot collide; descriptions and input schemas are
//     passed through (the registry checks arguments against the schema).
//   * notifications/tools/list_changed re-lists the tools: specs() changes
//     and the CEO sees it on its next model call.
//   * A server that dies (process exit, lost HTTP session, unreachable) is
//     restarted with exponential backoff (restart_base_ms doubling, capped at
//     restart_max_ms). Meanwhile its tools stay listed and their calls fail at
//     once: "MCP server X is not running; restarting (attempt n, next in t s)".
//     After a successful re-initialize the tools are listed again.
//
// One supervisor thread per server does the blocking parts (spawning,
// waiting for the handshake, ending a process); call() never blocks and
// calls `done` once, from the transport's thread or the supervisor's.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "protocols/mcp/client/mcp_client.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/mcp_server_config.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::mcp {

class McpToolSource : public company::ToolSource, public std::enable_shared_from_this<McpToolSource> {
 public:
  // `http` (HTTP transport and timers) must outlive the source.
  static std::shared_ptr<McpToolSource> create(config::McpServerConfig server, http::HttpClient& http);
  ~McpToolSource() override;

  // Starts the supervisor: connect, list tools, keep the server running.
  void start();
  // Waits until the server is up (tools listed) or its first attempt has
  // failed; the error says why it is not up. Does not stop the supervisor.
  Status wait_ready(std::chrono::milliseconds timeout);
  // Stops the supervisor and closes the connection (ends the process).
  void stop() override;

  std::string origin() const override;
  std::vector<llm::ToolSpec> specs() const override;
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  // What the server says of its tool: `readOnlyHint` or `idempotentHint`
  // true. Repeating a call only touches the server's own world, which it
  // describes; a tool it says nothing of is not repeated.
  bool repeatable(const std::string& name) const override;

  // For status output and tests.
  bool running() const;
  int restarts() const;  // successful re-initializations after the first
  std::string last_error() const;
  std::string server_name() const;
  int child_pid() const;  // stdio: the server process, -1 otherwise

 private:
  McpToolSource() = default;
  // Everything the supervisor thread touches: it must not keep the source
  // itself alive (the source's destructor stops the thread).
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kaisha::mcp
