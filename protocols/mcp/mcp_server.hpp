// McpServer: the MCP protocol (2025-11-25 and earlier legacy revisions) over
// an McpBackend, independent of transport. It answers initialize, ping,
// tools/*, resources/*, prompts/*, logging/setLevel, completion/complete,
// handles notifications/initialized and notifications/cancelled, and routes
// the client's answers to requests the server sent it (sampling,
// elicitation). Transports (mcp_http_transport.hpp, mcp_stdio_transport.hpp)
// move bytes and own the sessions; they call handle() for each message.
//
// Thread-safety: handle() may run concurrently for many sessions and for
// many requests of one session; a tool call blocks only its own caller.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/mcp/mcp_backend.hpp"
#include "protocols/mcp/mcp_session.hpp"
#include "runtime/jsonrpc/dispatcher.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

// Where the messages that belong to one incoming request go: the POST's SSE
// stream, or stdout. `send` returns false when the stream is gone.
struct McpStream {
  std::function<bool(const json&)> send;
  std::function<void()> close_early;  // optional (SSE polling)
};

struct McpServerOptions {
  jsonrpc::Limits limits;
  std::chrono::milliseconds client_request_timeout{60'000};  // sampling/elicitation answers
};

class McpServer {
 public:
  explicit McpServer(McpBackend& backend, McpServerOptions options = {});
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // Handles one validated message of `session`. `done` is called once with
  // the response owed (nullopt for a notification or a response).
  void handle(const jsonrpc::Message& message, const std::shared_ptr<McpSession>& session, McpStream stream,
              jsonrpc::Dispatcher::Done done);
  // Parses and handles a whole body (one message or a batch).
  void handle_body(std::string_view body, const std::shared_ptr<McpSession>& session, McpStream stream,
                   jsonrpc::Dispatcher::Done done);

  // Sessions that receive list_changed and resource-updated notifications.
  void add_session(const std::shared_ptr<McpSession>& session);
  void remove_session(const std::string& id);

  // Sends `notification` to every session's unrelated stream.
  void broadcast(const json& notification);
  // notifications/resources/updated to the sessions subscribed to `uri`.
  void resource_updated(const std::string& uri);

  const McpServerOptions& options() const { return options_; }
  McpBackend& backend() { return backend_; }

 private:
  struct Impl;
  McpBackend& backend_;
  McpServerOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
