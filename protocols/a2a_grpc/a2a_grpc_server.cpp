#include "protocols/a2a_grpc/a2a_grpc_server.hpp"

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "protocols/http/bind_policy.hpp"

namespace kaisha::a2a {
namespace {

Result<std::string> read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"config", std::string("gRPC TLS: cannot read the ") + what + " file " + path};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

A2aGrpcServerOptions grpc_options_beside(const protocols::HttpServerOptions& http, const std::string& host, int port) {
  A2aGrpcServerOptions go;
  go.host = host;
  go.port = port;
  go.bearer_token = http.bearer_token;
  go.tls_cert_file = http.tls_cert_file;
  go.tls_key_file = http.tls_key_file;
  go.behind_tls_proxy = http.behind_tls_proxy;
  go.max_message_bytes = http.max_body_bytes;
  return go;
}

A2aGrpcServer::A2aGrpcServer(std::shared_ptr<A2aService> service, A2aGrpcServerOptions options)
    : service_(std::move(service)), options_(std::move(options)) {}

A2aGrpcServer::~A2aGrpcServer() { stop(); }

std::string A2aGrpcServer::target() const {
  const std::string& h = options_.host;
  const bool v6 = h.find(':') != std::string::npos && h.front() != '[';
  return (v6 ? "[" + h + "]" : h) + ":" + std::to_string(port_);
}

Result<int> A2aGrpcServer::start() {
  const bool tls = !options_.tls_cert_file.empty() || !options_.tls_key_file.empty();
  if (tls && (options_.tls_cert_file.empty() || options_.tls_key_file.empty()))
    return Error{"config", "gRPC TLS needs both a certificate and a key file"};
  if (Status s = protocols::check_bind_policy(options_.host, options_.bearer_token, tls || options_.behind_tls_proxy);
      !s.ok())
    return s.error();
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (tls) {
    auto cert = read_file(options_.tls_cert_file, "certificate");
    if (!cert.ok()) return cert.error();
    auto key = read_file(options_.tls_key_file, "key");
    if (!key.ok()) return key.error();
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({*key, *cert});
    credentials = grpc::SslServerCredentials(ssl);
  }

  grpc_service_ =
      make_a2a_grpc_service(service_, A2aGrpcServiceOptions{options_.bearer_token, options_.max_queued_events});
  grpc::ServerBuilder builder;
  int bound = 0;
  const std::string host = options_.host.find(':') != std::string::npos && options_.host.front() != '['
                               ? "[" + options_.host + "]"
                               : options_.host;
  builder.AddListeningPort(host + ":" + std::to_string(options_.port), credentials, &bound);
  builder.RegisterService(grpc_service_.get());
  grpc::ResourceQuota quota("kaisha-a2a-grpc");
  quota.SetMaxThreads(options_.max_threads);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options_.max_concurrent_streams);
  builder.SetMaxReceiveMessageSize(static_cast<int>(options_.max_message_bytes));
  server_ = builder.BuildAndStart();
  if (!server_ || bound == 0) {
    server_.reset();
    return Error{"bind", "gRPC: cannot listen on " + host + ":" + std::to_string(options_.port)};
  }
  port_ = bound;
  return port_;
}

void A2aGrpcServer::stop() {
  if (!server_) return;
  // Open streams see their call cancelled within a stream tick and return.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_->Wait();
  server_.reset();
}

}  // namespace kaisha::a2a
