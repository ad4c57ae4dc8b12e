// McpServer: the MCP protocol over an McpBackend, independent of transport,
// in both eras (mcp_protocol.hpp); the transports decide a request's era
// (mcp_revision.hpp) and call handle() / handle_body() for a legacy message
// or handle_modern() for a modern request.
//
// Both eras serve the same tools/*, resources/*, prompts/* and
// completion/complete handlers; what differs is kept in small per-era parts:
//   legacy (2025-11-25 and earlier): initialize, ping, logging/setLevel,
//     resources/(un)subscribe, notifications/initialized and /cancelled;
//     a tool's questions to the client are server->client requests whose
//     answers come back through handle();
//   modern (2026-07-28): server/discover and subscriptions/listen, and the
//     tasks extension (mcp_tasks.hpp: tasks/get, tasks/update, tasks/cancel,
//     tools/call answered with a CreateTaskResult); no
//     session, the client's version, capabilities and log level come with
//     each request; a tool's questions become an InputRequiredResult
//     (input_exchange.hpp); every result carries resultType and the
//     server's identity, list and read results carry caching hints
//     (ttlMs, cacheScope); an unknown resource is -32602.
//
// Thread-safety: handle() may run concurrently for many sessions and for
// many requests of one session; a tool call blocks only its own caller.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/mcp/server/mcp_backend.hpp"
#include "protocols/mcp/wire/mcp_revision.hpp"
#include "protocols/mcp/server/mcp_session.hpp"
#include "protocols/mcp/server/task_table.hpp"
#include "runtime/jsonrpc/dispatcher.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

// Where the messages that belong to one incoming request go: the POST's SSE
// stream, or stdout. `send` returns false when the stream is gone.
struct McpStream {
  std::function<bool(const json&)> send;
  std::function<void()> close_early;  // optional (SSE polling)
  // Set by the transport once the client went away (a modern HTTP stream
  // closed); null when the transport cannot tell. A modern request's tool
  // sees it as cancellation, and a subscription on it is dropped.
  std::shared_ptr<std::atomic<bool>> gone;
};

struct McpServerOptions {
  jsonrpc::Limits limits;
  std::chrono::milliseconds client_request_timeout{60'000};  // sampling/elicitation answers
  TaskLimits tasks;                                          // the tasks extension (modern): how many, for how long
};

class McpServer {
 public:
  explicit McpServer(McpBackend& backend, McpServerOptions options = {});
  ~McpServer();
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  // Handles one validated legacy message of `session`. `done` is called
  // once with the response owed (nullopt for a notification or a response).
  void handle(const jsonrpc::Message& message, const std::shared_ptr<McpSession>& session, McpStream stream,
              jsonrpc::Dispatcher::Done done);
  // Parses and handles a whole legacy body (one message or a batch).
  void handle_body(std::string_view body, const std::shared_ptr<McpSession>& session, McpStream stream,
                   jsonrpc::Dispatcher::Done done);

  // Serves one modern request whose _meta read_modern_request() accepted.
  // `connection` is the stdio connection (its notifications/cancelled reach
  // the request), null on HTTP. `done` gets the response; for an error the
  // transport picks the HTTP status with modern_http_status().
  void handle_modern(const jsonrpc::Request& request, const ModernRequest& modern,
                     const std::shared_ptr<McpSession>& connection, McpStream stream, jsonrpc::Dispatcher::Done done);

  // True for a request the server answers at once, sending the client
  // nothing before its response: ping, server/discover, and a tools/call of
  // a tool the backend says answers at once. A transport may answer it on
  // its own thread, as one JSON object, even when the client accepts a stream.
  bool answers_at_once(const jsonrpc::Request& request);

  // Sessions that receive list_changed and resource-updated notifications.
  void add_session(const std::shared_ptr<McpSession>& session);
  void remove_session(const std::string& id);

  // A list_changed notification to every legacy session's unrelated stream
  // and to the modern subscriptions that asked for it.
  void broadcast(const json& notification);
  // notifications/resources/updated to the sessions and subscriptions of `uri`.
  void resource_updated(const std::string& uri);
  // Answers every open subscriptions/listen (the server is stopping).
  void end_subscriptions();

  const McpServerOptions& options() const { return options_; }
  McpBackend& backend() { return backend_; }
  // The tasks of the tasks extension this server holds.
  TaskTable& tasks();

 private:
  struct Impl;
  McpBackend& backend_;
  McpServerOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
