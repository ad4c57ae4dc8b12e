// McpHttpClientTransport: MCP's Streamable HTTP transport, client side, over
// the process's HttpClient (nothing blocks; callbacks run on its loop
// thread). What follows is the legacy (2025-11-25) shape; with a modern
// protocol version set (2026-07-28) there are no sessions, no GET stream and
// no resumption, every POST mirrors its method (Mcp-Method) and target
// (Mcp-Name) in headers, and a request is cancelled by closing its POST.
//
//   * Each message is one POST with `Accept: application/json,
//     text/event-stream`; the answer may be one JSON object or an SSE stream
//     carrying notifications and server requests before the response.
//   * The Mcp-Session-Id the server assigns is echoed on every later request;
//     MCP-Protocol-Version is sent once negotiated.
//   * After initialization a GET opens the server->client stream (405 means
//     the server has none). Streams are reopened after the server's `retry:`
//     delay with `Last-Event-ID`; a POST stream that ends before its answer is
//     resumed the same way (SEP-1699), otherwise the request fails.
//   * HTTP 404 on a session means the session is gone: on_closed, so the
//     owner re-initializes. A refused connection is on_closed as well.
//   * close() cancels what is in flight and DELETEs the session.
//   * With `oauth` set, every request carries its access token; a 401, or a
//     403 with error="insufficient_scope" (step-up), hands the server's
//     WWW-Authenticate challenge to it and the message is sent again once it
//     has a new token — at most twice per message, so a server that never
//     accepts cannot loop us. When authorization fails the request fails
//     with its error.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "protocols/mcp/client/mcp_client_transport.hpp"
#include "protocols/mcp/oauth/mcp_oauth.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::mcp {

struct McpHttpClientOptions {
  std::map<std::string, std::string> headers;  // extra headers (Authorization, ...)
  int64_t connect_timeout_ms = 5000;
  int64_t default_retry_ms = 1000;  // reconnect delay when the server sent no retry:
  int max_stream_reconnects = 3;    // in a row without an event, then give up on the stream
  bool open_get_stream = true;      // the server->client stream after initialization
  std::shared_ptr<McpOAuth> oauth;  // OAuth 2.1 authorization, or none
};

class McpHttpClientTransport : public McpClientTransport {
 public:
  // `http` must outlive the transport.
  McpHttpClientTransport(http::HttpClient& http, std::string url, McpHttpClientOptions options = {});
  ~McpHttpClientTransport() override;

  Status start(Handlers handlers) override;
  void send(const json& message) override;
  void send(const json& message, const std::vector<std::pair<std::string, std::string>>& headers) override;
  bool abandon_cancels() const override;
  void set_protocol_version(const std::string& version) override;
  void initialized() override;
  void abandon(const json& id) override;
  void close() override;
  std::string describe() const override;

  std::string session_id() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
