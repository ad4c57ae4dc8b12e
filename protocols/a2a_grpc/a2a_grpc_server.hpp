// A2A's gRPC binding served on its own port (gRPC speaks HTTP/2 and cannot
// share kaisha's HTTP/1.1 server): an A2aService (shared with the JSON-RPC
// and HTTP+JSON bindings) behind a2a_grpc_service.hpp's A2AService.
//
// Bounds: gRPC's synchronous server runs each call on a thread of its own
// pool, at most `max_threads` (gRPC's resource quota: a call that finds
// them all busy is refused with RESOURCE_EXHAUSTED, "Server Threadpool
// Exhausted", instead of getting a new thread); one connection carries at
// most `max_concurrent_streams` calls at once; a request message is at most
// `max_message_bytes`. A blocking SendMessage or an open stream holds its
// thread until it ends, so max_threads is also how many of them can run at
// once.
//
// Security: the same policy as the HTTP server (protocols/http/bind_policy):
// loopback unless a bearer token is set and the connection is TLS (a
// certificate and key here) -- or a TLS-terminating proxy is declared.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "protocols/a2a/a2a_service.hpp"
#include "protocols/a2a_grpc/a2a_grpc_service.hpp"
#include "protocols/http/http_server.hpp"
#include "runtime/core/result.hpp"

namespace grpc {
class Server;
}

namespace kaisha::a2a {

struct A2aGrpcServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                             // 0: any free port (see port())
  std::string bearer_token;                 // empty: none
  std::string tls_cert_file, tls_key_file;  // both or neither: TLS
  bool behind_tls_proxy = false;
  int max_threads = 64;
  int max_concurrent_streams = 100;
  size_t max_message_bytes = 4u << 20;
  size_t max_queued_events = 256;  // per stream (a2a_grpc_event_queue.hpp)
};

// Options for a gRPC binding served on host:port beside the HTTP server of
// `http`: its token, TLS files and proxy declaration, and its body limit as
// the largest message.
A2aGrpcServerOptions grpc_options_beside(const protocols::HttpServerOptions& http, const std::string& host, int port);

class A2aGrpcServer {
 public:
  A2aGrpcServer(std::shared_ptr<A2aService> service, A2aGrpcServerOptions options);
  ~A2aGrpcServer();  // stop()
  A2aGrpcServer(const A2aGrpcServer&) = delete;
  A2aGrpcServer& operator=(const A2aGrpcServer&) = delete;

  // Binds and starts serving; the bound port. Errors: the bind policy, an
  // unreadable certificate, an address gRPC cannot bind.
  Result<int> start();
  // "HOST:PORT" as a gRPC client dials it (the agent card's GRPC url).
  std::string target() const;
  int port() const { return port_; }
  // Ends open calls (streams get CANCELLED) and waits for their threads.
  void stop();

 private:
  std::shared_ptr<A2aService> service_;
  A2aGrpcServerOptions options_;
  std::unique_ptr<grpc::Service> grpc_service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace kaisha::a2a
