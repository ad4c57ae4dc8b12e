// McpHttpTransport: MCP's Streamable HTTP transport mounted on a
// protocols::HttpServer at one endpoint path (default "/mcp"), for both eras
// at once (mcp_revision.hpp decides each POST's era).
//
// Modern (2026-07-28), stateless:
//   POST    one JSON-RPC request with its _meta and the MCP-Protocol-Version,
//           Mcp-Method (and Mcp-Name, Mcp-Param-*) headers; no session. A
//           refused request gets 400 (bad _meta, header mismatch,
//           unsupported version, missing client capability) or 404 (unknown
//           method) with a JSON-RPC error carrying its id. Answered like a
//           legacy request (below), but its stream has no event ids and does
//           not resume, and closing it cancels the request.
//           subscriptions/listen is an event stream that stays open.
//   GET, DELETE with a modern MCP-Protocol-Version and no session: 405.
//
// Legacy (2025-11-25 and earlier):
//   POST    one JSON-RPC message. initialize (without a session) opens a
//           session and answers with an Mcp-Session-Id header; every other
//           POST must carry that header (missing: 400, unknown: 404) and, if
//           it sends MCP-Protocol-Version, a supported one (else 400).
//           Notifications and responses: 202, no body. A request is answered
//           as one JSON object when the client does not accept
//           text/event-stream, or when it does but the response is ready
//           within json_answer_wait with nothing sent before it; otherwise as
//           an SSE stream (progress, log lines and server->client requests
//           arrive on it before the response). A request the server answers
//           at once (McpServer::answers_at_once: ping, server/discover, a
//           tool the backend says is quick and silent) is answered as one
//           JSON object on the connection's own thread, without the hand-over
//           to a request thread (unless json_answer_wait is 0).
//   GET     an SSE stream for messages that belong to no request; with
//           Last-Event-ID it resumes a stream that was cut (replaying what
//           was missed).
//   DELETE  ends the session.
//
// Sessions are limited per client (source address plus bearer token,
// HttpRequest::client): a client at max_sessions_per_client first loses its
// own sessions idle for session_idle_ms, and if none is, its initialize gets
// 429 and a JSON-RPC error saying so. Beyond max_sessions in all, the oldest
// session of the client holding the most goes, so one client cannot evict
// everyone else's.
//
// Host and Origin are checked on every request (403 on failure: DNS
// rebinding protection). Error bodies carry the request's JSON-RPC id when
// it could be read. Other requests a client accepts a stream for run on
// their own thread so that the stream flows while the tool works; the
// destructor waits for them. At most max_running_streams run at once: one more gets 503
// and a JSON-RPC error saying so, before its stream opens.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "protocols/http/http_server.hpp"
#include "protocols/mcp/server/mcp_server.hpp"

namespace kaisha::mcp {

struct McpHttpOptions {
  std::string path = "/mcp";
  int64_t retry_ms = 1000;                // SSE "retry:" advertised to clients
  size_t max_sessions = 1000;             // in all (see above)
  size_t max_sessions_per_client = 32;    // open sessions of one client
  int64_t session_idle_ms = 30 * 60'000;  // idle sessions of a client at its limit are closed
  size_t max_running_streams = 256;       // requests answered by SSE whose handlers run at once
  // A client that accepts both gets one JSON object when the response is the
  // request's first message and comes within this; otherwise (a notification
  // or request to the client first, or a slower answer) an event stream.
  // 0 = always a stream.
  std::chrono::milliseconds json_answer_wait{20};
};

class McpHttpTransport {
 public:
  // Mounts the routes on `http` (before http.start()). `server` and `http`
  // must outlive this object.
  McpHttpTransport(McpServer& server, protocols::HttpServer& http, McpHttpOptions options = {});
  ~McpHttpTransport();
  McpHttpTransport(const McpHttpTransport&) = delete;
  McpHttpTransport& operator=(const McpHttpTransport&) = delete;

  size_t session_count() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
