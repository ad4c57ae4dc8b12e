#include "kaisha/server.hpp"

#include <utility>

#include "api/company_server.hpp"
#include "api/runtime_options.hpp"

namespace kaisha {

Result<std::unique_ptr<Server>> Server::start(ServerOptions options) {
  auto ro = api::runtime_options(std::move(options.company));
  if (!ro.ok()) return ro.error();
  api::ListenOptions listen;
  listen.http = options.http;
  listen.grpc = options.grpc;
  listen.bearer_token = options.bearer_token;
  listen.tls_cert = options.tls_cert_file;
  listen.tls_key = options.tls_key_file;
  listen.behind_tls_proxy = options.behind_tls_proxy;
  listen.max_body_bytes = options.max_body_bytes;
  listen.http_source = "ServerOptions::http";
  listen.grpc_source = "ServerOptions::grpc";
  auto server = api::CompanyServer::start(std::move(ro).value(), std::move(listen));
  if (!server.ok()) return server.error();
  return std::unique_ptr<Server>(new Server(std::move(server).value()));
}

Server::Server(std::unique_ptr<api::CompanyServer> server) : server_(std::move(server)) {}
Server::~Server() = default;

std::string Server::url() const { return server_->base_url(); }
std::string Server::grpc_target() const { return server_->grpc_target(); }
std::string Server::session_id() const { return server_->session_id(); }
Status Server::serve_stdio() { return server_->serve_stdio(); }
void Server::stop() { server_->stop(); }

}  // namespace kaisha
