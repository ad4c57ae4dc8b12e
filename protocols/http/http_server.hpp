// HttpServer: the one HTTP server under kaisha's protocol adapters (MCP's
// Streamable HTTP, A2A, ACP). Each protocol mounts its own routes on a shared
// server before start(); the server enforces what all of them need:
//
//   * bind policy: 127.0.0.1 by default; any non-loopback address is refused
//     at start() unless a bearer token is set (bind_policy.hpp);
//   * with a token, every request must carry `Authorization: Bearer <token>`
//     (401 otherwise, before any handler runs; the refusal and its reason
//     are logged to stderr);
//   * request bodies over max_body_bytes, or with a Content-Length that is
//     not a plain number, get 413/400 without being read (request_framing.hpp);
//   * deadlines: a request's headers must arrive within header_timeout_ms,
//     its body within body_timeout_ms, an idle connection closes after
//     keep_alive_timeout_ms, a write must progress within write_timeout_ms
//     (connection_stream.hpp);
//   * at most max_connections open connections, max_connections_per_client
//     from one source address; beyond that a connection is answered 503/429
//     and closed at once (connection_limiter.hpp);
//   * errors as JSON bodies {"error": {"code", "message"}} (protocols with
//     their own error shape answer themselves);
//   * SSE responses through SseWriter (sse_writer.hpp), carried by one
//     stream loop thread once their headers are written (stream_loop.hpp);
//   * HTTPS when tls_cert_file and tls_key_file are set.
//
// Each open connection has a thread of its own while it reads a request and
// runs its handler (no fixed pool that slow clients could fill); handlers run
// on it, may block (e.g. waiting for a task), and must not throw: an escaping
// exception is answered with 500 and logged to stderr. An open SSE stream
// holds no thread: after its headers the connection moves to the stream loop
// (and is closed when the stream ends), so open streams cost a socket and a
// bounded queue each.
//
// Thread-safety: add routes before start(); start()/stop() from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/http/sse_writer.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::protocols {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                                    // 0: an ephemeral port
  std::string bearer_token;                        // empty: no auth (loopback only)
  size_t max_body_bytes = JsonLimits{}.max_bytes;  // larger bodies get 413
  size_t max_connections = 2048;                   // open at once; more get 503
  size_t max_connections_per_client = 256;         // from one source address; more get 429
  int64_t header_timeout_ms = 10'000;              // request line and headers, from the request's first byte
  int64_t body_timeout_ms = 30'000;                // the body, from the end of the headers
  int64_t write_timeout_ms = 30'000;               // a peer not reading our response
  // An idle connection (before its first request or between two) is closed
  // after this long.
  int64_t keep_alive_timeout_ms = 5'000;
  int64_t sse_heartbeat_ms = 15'000;  // comment line on idle SSE streams (disconnect detection)
  // Events queued for one SSE client and not yet sent; a client that falls
  // further behind is dropped (logged).
  size_t sse_max_queued_bytes = SseWriter::kDefaultMaxQueuedBytes;
  std::vector<std::string> allowed_origins;  // besides loopback origins
  // HTTPS: PEM files of the certificate (chain) and its private key; both or neither.
  std::string tls_cert_file;
  std::string tls_key_file;
  // A TLS-terminating proxy is in front: plain HTTP off loopback is allowed
  // with a bearer token (which the proxy's TLS protects).
  bool behind_tls_proxy = false;
};

struct HttpRequest {
  std::string method;                          // "GET", "POST", ...
  std::string path;                            // without the query string
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::map<std::string, std::string> query;    // decoded query parameters
  std::vector<std::string> path_params;        // regex captures of the route pattern
  std::string body;
  std::string remote_addr;
  // Who sent it, for per-client limits: the source address, plus a
  // fingerprint of the Authorization header when there is one.
  std::string client;

  // The header's value or "" (`name` in any case).
  std::string header(std::string_view name) const;
};

class HttpResponse {
 public:
  // `sse_max_queued_bytes` bounds the writer start_sse() creates.
  explicit HttpResponse(size_t sse_max_queued_bytes = SseWriter::kDefaultMaxQueuedBytes)
      : sse_max_queued_bytes_(sse_max_queued_bytes) {}

  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::map<std::string, std::string> headers;

  void set_json(int status_code, const json& j);
  // {"error": {"code": <code>, "message": <message>}} with the status.
  void set_error(int status_code, std::string_view code, std::string_view message);
  // Turns this response into an event stream; the body is what the returned
  // writer is given until it is closed. Calling it again returns the same writer.
  std::shared_ptr<SseWriter> start_sse();
  const std::shared_ptr<SseWriter>& sse() const { return sse_; }

 private:
  size_t sse_max_queued_bytes_;
  std::shared_ptr<SseWriter> sse_;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

class HttpServer {
 public:
  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Mounts `handler` for `method` ("GET", "POST", "PUT", "PATCH", "DELETE",
  // "OPTIONS") on paths matching the regex `pattern` in full (captures go to
  // HttpRequest::path_params). Before start() only; later routes are ignored
  // and reported by start().
  void route(const std::string& method, const std::string& pattern, HttpHandler handler);
  // The same for a GET route that answers without the bearer token: content
  // that is no secret and that a browser fetches by navigating, which sends
  // no Authorization header (the dashboard's page, its scripts and styles).
  // Everything else the server does still applies; the handler checks
  // Host/Origin itself as any other.
  void route_public_get(const std::string& pattern, HttpHandler handler);

  // Checks the bind policy, binds and serves on background threads. Returns
  // the bound port; the error says why not (policy, address in use, ...).
  Result<int> start();
  // Closes open SSE streams, stops accepting, joins the threads. Idempotent.
  void stop();

  int port() const;
  const HttpServerOptions& options() const;
  // "http://host:port" or "https://..." (IPv6 hosts bracketed); valid after start().
  std::string base_url() const;
  // Connections open now (admitted, not yet closed); for tests and diagnostics.
  size_t open_connections() const;
  // Event streams carried by the stream loop now (each also counts as an
  // open connection).
  size_t open_streams() const;
  // True when bound to a loopback address (Host checks apply).
  bool loopback_only() const;

  // Ok when the request's Host and Origin pass check_origin_and_host for
  // this server (loopback binding and allowed_origins).
  Status check_origin(const HttpRequest& request) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::protocols
