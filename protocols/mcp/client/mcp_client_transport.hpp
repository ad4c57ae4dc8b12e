// McpClientTransport: how kaisha's MCP client reaches one server — a child
// process over stdio, or a Streamable HTTP endpoint. A transport only moves
// JSON-RPC messages; McpClient decides what they mean.
//
// Contract:
//   * send() never blocks the caller; it queues the message.
//   * Messages from the server reach Handlers::on_message, on the
//     transport's own thread (stdio) or the HttpClient's loop (HTTP).
//   * When a request cannot be delivered or answered at the transport level
//     (HTTP error status, refused connection, a stream cut without a way to
//     resume), the transport hands on_message a JSON-RPC error response with
//     that request's id, so the pending call ends with a clear message.
//   * on_closed is called at most once, when the server is gone for good
//     (the process exited, the HTTP session expired or the server is
//     unreachable). It is not called after close().
//   * After close() returns, no handler runs any more. close() must not be
//     called from inside a handler.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

class McpClientTransport {
 public:
  struct Handlers {
    std::function<void(const json& message)> on_message;
    // A line or event that is not JSON: for the client's diagnostics.
    std::function<void(const std::string& what)> on_malformed;
    std::function<void(const Error& why)> on_closed;
  };

  virtual ~McpClientTransport() = default;

  // Starts the transport (spawns the process). Errors say why it could not.
  virtual Status start(Handlers handlers) = 0;
  virtual void send(const json& message) = 0;
  // The same with extra HTTP headers (a modern tools/call's Mcp-Param-*);
  // transports without headers ignore them.
  virtual void send(const json& message, const std::vector<std::pair<std::string, std::string>>& headers) {
    (void)headers;
    send(message);
  }
  // The version requests speak (after initialize, or for a modern probe;
  // "" before a legacy initialize): HTTP sends it as a header and, for a
  // modern version, mirrors each request's method and target too.
  virtual void set_protocol_version(const std::string& version) = 0;
  // After notifications/initialized: HTTP opens its server->client stream.
  virtual void initialized() {}
  // The request `id` was given up (timeout): stop waiting for its answer
  // (HTTP aborts its POST).
  virtual void abandon(const json& id) { (void)id; }
  // True when abandon() itself tells the server (a modern HTTP request's
  // stream is closed): no notifications/cancelled is sent then.
  virtual bool abandon_cancels() const { return false; }
  // How long a server silent on the server/discover probe is waited for
  // before it is taken for a legacy one (McpClientOptions::discover_timeout_ms
  // 0). An HTTP server answers every request with something, so silence
  // there is a hung server; a legacy stdio server may ignore any request
  // before initialize, so stdio waits briefly.
  virtual int64_t discover_timeout_ms() const { return 10'000; }
  virtual void close() = 0;
  // "stdio: node server.js" / "http://127.0.0.1:3001/mcp", for messages.
  virtual std::string describe() const = 0;
};

}  // namespace kaisha::mcp
