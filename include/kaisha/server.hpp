// kaisha/server.hpp: offer a company to other programs over the protocols
// `kaisha serve` speaks (docs/serve.md): MCP over Streamable HTTP at /mcp
// (or on this process's stdin/stdout), A2A at /a2a with its agent card (and
// its gRPC binding on a port of its own), IBM's ACP at /acp, the live events
// at /events, Prometheus metrics at /metrics and the dashboard at /.
//
// Each client's tasks run in a session of its own, or all in one, under the
// limits of the configuration's `serve:` section (docs/configuration.md);
// every task is journaled before its id is given out, so a server started
// again on the same store runs what a killed one left waiting.
//
// Threading: start() returns once every listener is bound; requests are
// served on the server's own threads while the caller goes on.
// serve_stdio() blocks its caller until stdin ends. stop() may be called
// from any one thread; the events sink is called as for a Company.
// Ownership: start() returns the only owner; destroying the Server stops it
// (in-flight requests are answered or closed, the journal committed).
// Errors: start() returns an Error naming what was wrong — the
// configuration's file, line and key, an address that does not parse, a port
// taken, a TLS file that cannot be read, a missing token off loopback — and
// leaves nothing running. Protocol errors go to the client that caused them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "kaisha/company.hpp"

namespace kaisha {

namespace api {
class CompanyServer;
}

struct ServerOptions {
  // The company: configuration, session, strategy, model backend, event
  // sink and tools, as for Company::start.
  CompanyOptions company;
  // ADDR:PORT to serve HTTP on; port 0 picks a free one (see url()); "" =
  // no HTTP (serve_stdio() only).
  std::string http = "127.0.0.1:0";
  // ADDR:PORT for A2A's gRPC binding; "" = the configuration's serve.grpc,
  // none when that is unset too.
  std::string grpc;
  // The bearer token every HTTP and gRPC client must send; "" =
  // $KAISHA_HTTP_TOKEN. Required off loopback.
  std::string bearer_token;
  // HTTPS: PEM files ("" = the configuration's serve.tls_cert/tls_key).
  std::string tls_cert_file;
  std::string tls_key_file;
  // A TLS-terminating proxy is in front: a token over plain HTTP is allowed
  // off loopback.
  bool behind_tls_proxy = false;
  size_t max_body_bytes = 4u << 20;  // the largest JSON body any protocol accepts
};

class Server {
 public:
  static Result<std::unique_ptr<Server>> start(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // "http://HOST:PORT" (or https); MCP is at url() + "/mcp". "" without HTTP.
  std::string url() const;
  // "HOST:PORT" of A2A's gRPC binding; "" when it is not served.
  std::string grpc_target() const;
  // The server's own session (clients' sessions are its children).
  std::string session_id() const;

  // Serves MCP on this process's stdin/stdout until stdin ends (the HTTP
  // listeners keep serving meanwhile). An error when stdio fails.
  Status serve_stdio();

  // Stops serving, then the company. Idempotent.
  void stop();

 private:
  explicit Server(std::unique_ptr<api::CompanyServer> server);
  std::unique_ptr<api::CompanyServer> server_;
};

}  // namespace kaisha
