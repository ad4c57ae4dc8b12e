// CompanyServer: a company offered to other programs over every protocol
// kaisha speaks, as `kaisha serve` runs it — MCP on stdio and/or Streamable
// HTTP at /mcp, and on the same HTTP server A2A (/a2a, its card, and its gRPC
// binding on a port of its own when asked), IBM's ACP (/acp), the live
// events (/events), the metrics (/metrics) and the dashboard (/). The
// company's sessions are kept by actors::CompanySessions under the config's
// `serve:` limits. Used by `kaisha serve` and by the public kaisha::Server.
//
// Threading: start() returns once every listener is bound; requests are
// served on the servers' own threads. serve_stdio() blocks its caller.
// stop() and the destructor wait for in-flight requests and stop the
// company (its journal committed). Errors: start() returns an Error naming
// the option that was wrong (a bad address, a port taken, a TLS file) and
// leaves nothing running.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "actors/company/company_runtime.hpp"
#include "protocols/http/bind_policy.hpp"
#include "protocols/http/http_server.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::api {

struct ListenOptions {
  std::string http;  // ADDR:PORT (port 0: any free one); "" = no HTTP, MCP on stdio only
  std::string grpc;  // A2A's gRPC binding, ADDR:PORT; "" = the config's serve.grpc (none if unset)
  // The bearer token HTTP clients must send; "" = $KAISHA_HTTP_TOKEN. Off
  // loopback a token (or TLS behind a proxy) is required.
  std::string bearer_token;
  std::string tls_cert;  // "" = the config's serve.tls_cert
  std::string tls_key;   // "" = the config's serve.tls_key
  bool behind_tls_proxy = false;
  size_t max_body_bytes = 4u << 20;  // the largest JSON body any protocol accepts
  // Where errors about the option came from, for messages ("--http").
  std::string http_source = "http";
  std::string grpc_source = "grpc";
};

// The HTTP server's options for `listen` at `at`: the listen options first,
// then the config's `serve:` section (TLS files, proxy, connection limits).
protocols::HttpServerOptions http_server_options(const ListenOptions& listen, const config::ServeConfig& serve,
                                                 const protocols::HostPort& at);

class CompanyServer {
 public:
  // Starts the company (runtime.config, its session and strategy) and the
  // listeners. runtime.progress still hears every event; runtime.metrics,
  // when null, becomes the process's default registry.
  static Result<std::unique_ptr<CompanyServer>> start(actors::RuntimeOptions runtime, ListenOptions listen);
  ~CompanyServer();
  CompanyServer(const CompanyServer&) = delete;
  CompanyServer& operator=(const CompanyServer&) = delete;

  // "http(s)://HOST:PORT" of the HTTP server; "" without one.
  std::string base_url() const;
  // "HOST:PORT" of A2A's gRPC binding; "" without one.
  std::string grpc_target() const;
  // The server's own session (each client may get a session of its own
  // under serve.shared_session: false).
  std::string session_id() const;
  // Set when the dashboard could not be mounted (its files are missing):
  // the protocols are served without it.
  const std::string& dashboard_error() const { return dashboard_error_; }

  // MCP over this process's stdin/stdout until stdin ends; the HTTP
  // listeners keep serving meanwhile. An error when stdio fails.
  Status serve_stdio();

  // Stops the listeners, then the company. Idempotent.
  void stop();

 private:
  struct Parts;
  CompanyServer();
  std::unique_ptr<Parts> parts_;
  std::string dashboard_error_;
};

}  // namespace kaisha::api
