// HttpServer: the one HTTP server under kaisha's protocol adapters (MCP's
// Streamable HTTP, A2A, ACP). Each protocol mounts its own routes on a shared
// server before start(); the server enforces what all of them need:
//
//   * bind policy: 127.0.0.1 by default; any non-loopback address is refused
//     at start() unless a bearer token is set (bind_policy.hpp);
//   * with a token, every request must carry `Authorization: Bearer <token>`
//     (401 otherwise, before any handler runs);
//   * request bodies over max_body_bytes get 413 without being read;
//   * read/write timeouts, so a slow or dead peer cannot hold a thread forever;
//   * errors as JSON bodies {"error": {"code", "message"}} (protocols with
//     their own error shape answer themselves);
//   * SSE responses through SseWriter (sse_writer.hpp).
//
// Handlers run on the server's worker threads (options.threads of them), may
// block (e.g. waiting for a task), and must not throw: an escaping exception
// is answered with 500 and logged to stderr. An open SSE stream occupies one
// worker thread for its lifetime.
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
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::protocols {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                       // 0: an ephemeral port
  std::string bearer_token;           // empty: no auth (loopback only)
  size_t max_body_bytes = 4u << 20;   // larger bodies get 413
  int threads = 128;                  // worker pool; each connection holds one while open
  int64_t read_timeout_ms = 30'000;   // waiting for a request's bytes
  int64_t write_timeout_ms = 30'000;  // a peer not reading our response
  // An idle keep-alive connection holds a worker this long, and stop() waits
  // for it (whole seconds).
  int64_t keep_alive_timeout_ms = 2'000;
  int64_t sse_heartbeat_ms = 15'000;  // comment line on idle SSE streams (disconnect detection)
  std::vector<std::string> allowed_origins;  // besides loopback origins
};

struct HttpRequest {
  std::string method;   // "GET", "POST", ...
  std::string path;     // without the query string
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::map<std::string, std::string> query;    // decoded query parameters
  std::vector<std::string> path_params;        // regex captures of the route pattern
  std::string body;
  std::string remote_addr;

  // The header's value or "" (`name` in any case).
  std::string header(std::string_view name) const;
};

class HttpResponse {
 public:
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

  // Checks the bind policy, binds and serves on background threads. Returns
  // the bound port; the error says why not (policy, address in use, ...).
  Result<int> start();
  // Closes open SSE streams, stops accepting, joins the threads. Idempotent.
  void stop();

  int port() const;
  const HttpServerOptions& options() const;
  // "http://host:port" (IPv6 hosts bracketed); valid after start().
  std::string base_url() const;
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
