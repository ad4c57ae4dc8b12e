#include "api/company_server.hpp"

#include <csignal>
#include <optional>
#include <utility>
#include <vector>

#include "actors/company/company_sessions.hpp"
#include "protocols/a2a/a2a_server.hpp"
#include "protocols/a2a_grpc/a2a_grpc_server.hpp"
#include "protocols/acp/acp_server.hpp"
#include "api/dashboard_mount.hpp"
#include "protocols/dashboard/service_company.hpp"
#include "protocols/http/bind_policy.hpp"
#include "protocols/http/http_server.hpp"
#include "protocols/mcp/server/company_backend.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "protocols/mcp/server/mcp_server.hpp"
#include "protocols/mcp/server/mcp_stdio_transport.hpp"
#include "protocols/telemetry/events_endpoint.hpp"
#include "protocols/telemetry/metrics_endpoint.hpp"
#include "runtime/company/event_log.hpp"
#include "runtime/company/progress_fan_out.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::api {

// Declared in the order they start; destroyed in reverse, so the listeners
// go before the company they serve.
struct CompanyServer::Parts {
  std::shared_ptr<company::EventLog> events = std::make_shared<company::EventLog>();
  telemetry::MetricsRegistry* metrics = nullptr;
  std::unique_ptr<actors::CompanySessions> company;
  std::unique_ptr<mcp::CompanyBackend> backend;
  std::unique_ptr<mcp::McpServer> mcp;
  std::unique_ptr<dashboard::ServiceCompany> dashboard;  // outlives the server that calls it
  std::unique_ptr<protocols::HttpServer> http;
  std::unique_ptr<mcp::McpHttpTransport> mcp_http;
  std::unique_ptr<a2a::A2aGrpcServer> grpc;
  std::shared_ptr<void> acp;
};

namespace {

actors::SessionLimits session_limits(const config::ServeConfig& serve) {
  actors::SessionLimits limits;
  limits.shared = serve.shared_session;
  limits.per_session_budget = serve.per_session_budget;
  limits.max_sessions = static_cast<size_t>(serve.max_sessions);
  limits.max_tasks = static_cast<size_t>(serve.max_tasks);
  limits.max_running_tasks = static_cast<int>(serve.max_running_tasks);
  limits.input_timeout = std::chrono::seconds(serve.input_timeout_s);
  return limits;
}

}  // namespace

protocols::HttpServerOptions http_server_options(const ListenOptions& o, const config::ServeConfig& serve,
                                                 const protocols::HostPort& at) {
  protocols::HttpServerOptions ho;
  ho.host = at.host;
  ho.port = at.port;
  ho.bearer_token = protocols::resolve_bearer_token(o.bearer_token);
  ho.max_body_bytes = o.max_body_bytes;
  ho.tls_cert_file = o.tls_cert.empty() ? serve.tls_cert : o.tls_cert;
  ho.tls_key_file = o.tls_key.empty() ? serve.tls_key : o.tls_key;
  ho.behind_tls_proxy = o.behind_tls_proxy || serve.behind_tls_proxy;
  ho.max_connections = static_cast<size_t>(serve.max_connections);
  ho.max_connections_per_client = static_cast<size_t>(serve.max_connections_per_client);
  return ho;
}

CompanyServer::CompanyServer() : parts_(std::make_unique<Parts>()) {}
CompanyServer::~CompanyServer() { stop(); }

Result<std::unique_ptr<CompanyServer>> CompanyServer::start(actors::RuntimeOptions runtime, ListenOptions listen) {
  const config::ServeConfig serve = runtime.config.serve;
  const std::string& grpc_at = listen.grpc.empty() ? serve.grpc : listen.grpc;
  const std::string grpc_source = listen.grpc.empty() ? "serve.grpc" : listen.grpc_source;
  if (!grpc_at.empty() && listen.http.empty())
    return Error{"usage", grpc_source + " serves the company's A2A: give an HTTP address too"};
  // Checked before the company starts, so that a typo costs nothing.
  std::optional<protocols::HostPort> http_at;
  if (!listen.http.empty()) {
    auto hp = protocols::parse_host_port(listen.http);
    if (!hp) return Error{"usage", listen.http_source + ": " + hp.error().message};
    http_at = *hp;
  }
  std::optional<protocols::HostPort> grpc_addr;
  if (!grpc_at.empty()) {
    auto hp = protocols::parse_host_port(grpc_at);
    if (!hp) return Error{"usage", grpc_source + ": " + hp.error().message};
    grpc_addr = *hp;
  }
  // A client that hangs up must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<CompanyServer> self(new CompanyServer());
  Parts& p = *self->parts_;
  p.metrics = runtime.metrics ? runtime.metrics : &telemetry::default_registry();
  runtime.metrics = p.metrics;
  runtime.progress = runtime.progress
                         ? std::make_shared<company::ProgressFanOut>(
                               std::vector<std::shared_ptr<company::ProgressSink>>{runtime.progress, p.events})
                         : std::shared_ptr<company::ProgressSink>(p.events);
  const config::Config company_config = runtime.config;  // the dashboard reads its journal
  auto sessions = actors::CompanySessions::start(std::move(runtime), session_limits(serve));
  if (!sessions.ok()) return sessions.error();
  p.company = std::move(sessions).value();
  auto backend = mcp::CompanyBackend::load(*p.company);
  if (!backend.ok()) return backend.error();
  p.backend = std::move(backend).value();

  mcp::McpServerOptions mcp_options;
  mcp_options.limits.body.max_bytes = listen.max_body_bytes;
  p.mcp = std::make_unique<mcp::McpServer>(*p.backend, mcp_options);
  if (!http_at) return self;

  p.http = std::make_unique<protocols::HttpServer>(http_server_options(listen, serve, *http_at));
  mcp::McpHttpOptions mo;
  mo.max_sessions_per_client = static_cast<size_t>(serve.max_mcp_sessions_per_client);
  p.mcp_http = std::make_unique<mcp::McpHttpTransport>(*p.mcp, *p.http, mo);
  // One size and nesting limit for every JSON body, whatever the protocol.
  a2a::A2aServerOptions a2a_options;
  a2a_options.service.body_limits = mcp_options.limits.body;
  auto a2a_service = std::make_shared<a2a::A2aService>(*p.company, a2a_options.service);
  if (grpc_addr) {
    // Under the HTTP server's token, TLS and body limit.
    const a2a::A2aGrpcServerOptions go =
        a2a::grpc_options_beside(http_server_options(listen, serve, *grpc_addr), grpc_addr->host, grpc_addr->port);
    p.grpc = std::make_unique<a2a::A2aGrpcServer>(a2a_service, go);
    auto port = p.grpc->start();  // before the card is mounted, which lists its port
    if (!port) return Error{"bind", grpc_source + ": " + port.error().message};
    a2a_options.grpc_target = p.grpc->target();
  }
  a2a::mount_a2a(*p.http, a2a_service, a2a_options);
  acp::AcpServerOptions acp_options;
  acp_options.prefix = "/acp";
  acp_options.service.body_limits = mcp_options.limits.body;
  p.acp = acp::mount_acp(*p.http, *p.company, acp_options);
  telemetry_http::mount_events(*p.http, p.events);
  telemetry_http::mount_metrics(*p.http, *p.metrics);
  // An operator's raise from the page goes to the ledger of the session it names (the served one's
  // without per-session budgets), as `kaisha budget --raise-*`.
  actors::CompanySessions* company = p.company.get();
  dashboard::ServiceBudgets budgets;
  budgets.per_session = serve.per_session_budget;
  budgets.budget = [company](const std::string& session) { return company->session_budget(session); };
  budgets.raise = [company](const std::string& session, const std::string& which, double amount) {
    return company->raise_session_budget(session, which, amount);
  };
  p.dashboard = std::make_unique<dashboard::ServiceCompany>(*p.company, std::move(budgets));
  // The protocols are served without the page when its files are missing (a partial install).
  if (Status d = mount_company_dashboard(*p.http, *p.dashboard, company_config, p.company->session_id()); !d.ok())
    self->dashboard_error_ = d.error().message;
  auto port = p.http->start();
  if (!port) return Error{"bind", listen.http_source + ": " + port.error().message};
  return self;
}

std::string CompanyServer::base_url() const {
  return parts_ && parts_->http ? parts_->http->base_url() : std::string();
}
std::string CompanyServer::grpc_target() const {
  return parts_ && parts_->grpc ? parts_->grpc->target() : std::string();
}
std::string CompanyServer::session_id() const {
  return parts_ && parts_->company ? parts_->company->session_id() : std::string();
}

Status CompanyServer::serve_stdio() {
  if (!parts_) return Error{"stopped", "the server has stopped"};
  mcp::McpStdioTransport stdio(*parts_->mcp);
  return stdio.serve();
}

void CompanyServer::stop() {
  if (!parts_) return;
  if (parts_->grpc) parts_->grpc->stop();
  if (parts_->http) parts_->http->stop();
  parts_.reset();  // the transports, then the company (its journal committed)
}

}  // namespace kaisha::api
