// kaisha serve: offers the company to other programs over MCP — on stdio
// (--mcp-stdio, for clients that start kaisha as a subprocess) and/or on
// Streamable HTTP at http://ADDR/mcp (--http ADDR:PORT), where A2A
// (/a2a, card at /.well-known/agent-card.json) and ACP (/acp) are served too;
// --grpc ADDR:PORT (or serve.grpc) adds A2A's gRPC binding on its own port.
// `--fixture conformance` serves the MCP conformance suite's test contents
// instead of the company, and `--fixture a2a-tck` the A2A TCK's scenario
// agent over A2A alone (test fixtures, for the interop tests).
//
// With --http, the first stdout line is "kaisha serve: MCP at <url>" (with
// --fixture a2a-tck: "kaisha serve: A2A at <url>") so that scripts and tests
// know where to connect; with --mcp-stdio, stdout carries
// MCP messages only and everything else goes to stderr.
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>

#include "actors/system/provider_chat_client.hpp"
#include "api/company_server.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/stop_signals.hpp"
#include "protocols/a2a/a2a_server.hpp"
#include "protocols/a2a/tck_scenario_agent.hpp"
#include "protocols/a2a_grpc/a2a_grpc_server.hpp"
#include "protocols/remote/remote_agent_client.hpp"
#include "protocols/http/bind_policy.hpp"
#include "protocols/http/http_server.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "protocols/mcp/server/mcp_server.hpp"
#include "protocols/mcp/client/mcp_servers_start.hpp"
#include "protocols/mcp/server/mcp_stdio_transport.hpp"

namespace kaisha::cli {

namespace {

struct ServeOptions {
  CommonOptions common;
  bool mcp_stdio = false;
  std::string http;
  std::string grpc;  // A2A's gRPC binding, HOST:PORT; empty: not served
  std::string token;
  std::string fixture;
  size_t max_body_bytes = 4u << 20;
  std::string tls_cert;
  std::string tls_key;
  bool behind_tls_proxy = false;
};

int serve_fail(const std::string& message, int code = 2) {
  std::cerr << "kaisha serve: " << message << "\n";
  return code;
}

// The listen options the flags give (the config's `serve:` section fills in
// what they leave empty).
api::ListenOptions listen_options(const ServeOptions& o) {
  api::ListenOptions listen;
  listen.http = o.http;
  listen.grpc = o.grpc;
  listen.bearer_token = o.token;
  listen.tls_cert = o.tls_cert;
  listen.tls_key = o.tls_key;
  listen.behind_tls_proxy = o.behind_tls_proxy;
  listen.max_body_bytes = o.max_body_bytes;
  listen.http_source = "--http";
  listen.grpc_source = "--grpc";
  return listen;
}

protocols::HttpServerOptions http_options(const ServeOptions& o, const config::ServeConfig& listen,
                                          const protocols::HostPort& addr) {
  return api::http_server_options(listen_options(o), listen, addr);
}

// With --grpc (or serve.grpc in the config): A2A's gRPC binding for `service`, started (so that the card
// can list its port), under the HTTP server's token, TLS and body limit.
Result<std::unique_ptr<a2a::A2aGrpcServer>> start_grpc(const ServeOptions& o, const config::ServeConfig& listen,
                                                       std::shared_ptr<a2a::A2aService> service) {
  const std::string& where = o.grpc.empty() ? listen.grpc : o.grpc;  // the flag wins over serve.grpc
  if (where.empty()) return std::unique_ptr<a2a::A2aGrpcServer>();
  auto addr = protocols::parse_host_port(where);
  if (!addr) return Error{"usage", "--grpc: " + addr.error().message};
  const a2a::A2aGrpcServerOptions go = a2a::grpc_options_beside(http_options(o, listen, *addr), addr->host, addr->port);
  auto server = std::make_unique<a2a::A2aGrpcServer>(std::move(service), go);
  auto port = server->start();
  if (!port) return Error{"bind", "--grpc: " + port.error().message};
  return server;
}

// --fixture a2a-tck: the A2A TCK's scenario agent on A2A alone (both HTTP
// bindings, and gRPC with --grpc), no company and no MCP.
int serve_a2a_tck_fixture(const ServeOptions& o) {
  if (o.mcp_stdio || o.http.empty())
    return serve_fail("--fixture a2a-tck serves A2A over HTTP: give --http ADDR:PORT only");
  block_stop_signals();
  auto addr = protocols::parse_host_port(o.http);
  if (!addr) return serve_fail("--http: " + addr.error().message);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server
  auto agent = std::make_shared<a2a::TckScenarioAgent>();
  protocols::HttpServer http(http_options(o, config::ServeConfig{}, *addr));
  a2a::A2aServerOptions options;
  options.agent_name = "kaisha A2A TCK fixture";
  options.description = "Test fixture: the A2A TCK's scenario agent (acts on the messageId prefix), not a company";
  options.service.body_limits.max_bytes = o.max_body_bytes;
  auto service = std::make_shared<a2a::A2aService>(agent, options.service);
  auto grpc = start_grpc(o, config::ServeConfig{}, service);
  if (!grpc.ok()) return serve_fail(grpc.error().message);
  if (*grpc) options.grpc_target = (*grpc)->target();
  a2a::mount_a2a(http, service, options);
  auto port = http.start();
  if (!port) return serve_fail(port.error().message);
  std::cout << "kaisha serve: A2A at " << http.base_url() << "/a2a" << std::endl;
  std::cerr << "kaisha serve: the A2A TCK's scenario agent (a test fixture); HTTP+JSON at " << http.base_url()
            << "/a2a/rest, " << (*grpc ? "gRPC at " + (*grpc)->target() + ", " : std::string()) << "card "
            << http.base_url() << "/.well-known/agent-card.json" << std::endl;
  wait_for_stop_signal();
  if (*grpc) (*grpc)->stop();
  http.stop();
  return 0;
}

// --fixture conformance: the MCP conformance suite's test server, no company.
int serve_conformance_fixture(const ServeOptions& o) {
  if (!o.grpc.empty()) return serve_fail("--grpc serves the company's A2A, not the conformance fixture");
  if (!o.mcp_stdio) block_stop_signals();
  auto fx = mcp::ConformanceFixture::load();
  if (!fx) return serve_fail(fx.error().message);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server
  mcp::McpServerOptions server_options;
  server_options.limits.body.max_bytes = o.max_body_bytes;
  mcp::McpServer server(**fx, server_options);
  std::unique_ptr<protocols::HttpServer> http;
  std::unique_ptr<mcp::McpHttpTransport> transport;
  if (!o.http.empty()) {
    auto addr = protocols::parse_host_port(o.http);
    if (!addr) return serve_fail("--http: " + addr.error().message);
    http = std::make_unique<protocols::HttpServer>(http_options(o, config::ServeConfig{}, *addr));
    mcp::McpHttpOptions mo;
    mo.max_sessions_per_client = static_cast<size_t>(config::ServeConfig{}.max_mcp_sessions_per_client);
    transport = std::make_unique<mcp::McpHttpTransport>(server, *http, mo);
    auto port = http->start();
    if (!port) return serve_fail(port.error().message);
    (o.mcp_stdio ? std::cerr : std::cout) << "kaisha serve: MCP at " << http->base_url() << "/mcp" << std::endl;
  }
  if (o.mcp_stdio) {
    auto st = mcp::McpStdioTransport(server).serve();
    if (http) http->stop();
    return st ? 0 : serve_fail(st.error().message, 1);
  }
  wait_for_stop_signal();
  http->stop();
  return 0;
}

int serve(const ServeOptions& o) {
  if (o.fixture == "a2a-tck") return serve_a2a_tck_fixture(o);
  if (!o.mcp_stdio && o.http.empty()) return serve_fail("nothing to serve: give --mcp-stdio and/or --http ADDR:PORT");
  if (o.fixture == "conformance") return serve_conformance_fixture(o);
  if (!o.fixture.empty()) return serve_fail("unknown --fixture '" + o.fixture + "' (known: conformance, a2a-tck)");
  // Before any thread starts (the tracer's, the company's), so that only
  // wait_for_stop_signal() sees SIGINT and SIGTERM.
  if (!o.mcp_stdio) block_stop_signals();

  auto c = load_cli_config(o.common, /*needs_model=*/true);
  if (!c.ok()) return serve_fail(c.error().message);
  if (Status t = start_tracing(*c); !t.ok()) return serve_fail(t.error().message);
  actors::RuntimeOptions ro;
  ro.config = *c;
  ro.chat = remote::make_remote_agent_client(actors::make_provider_chat_client(*c), *c);
  ro.session_id = o.common.session;
  if (ro.session_id.empty()) {
    auto left = session_left_running(*c);
    if (!left.ok()) return serve_fail(left.error().message);
    ro.session_id = *left;
  }
  // The session's tasks its last process left unfinished run first.
  ro.resume = !ro.session_id.empty();
  ro.tool_sources = mcp::start_mcp_servers(c->mcp_servers);
  auto server = api::CompanyServer::start(std::move(ro), listen_options(o));
  if (!server.ok()) return serve_fail(server.error().message);
  api::CompanyServer& s = **server;
  if (!s.dashboard_error().empty()) std::cerr << "kaisha serve: no dashboard: " << s.dashboard_error() << std::endl;
  if (!o.http.empty()) {
    const std::string base = s.base_url();
    (o.mcp_stdio ? std::cerr : std::cout) << "kaisha serve: MCP at " << base << "/mcp" << std::endl;
    std::cerr << "kaisha serve: A2A at " << base << "/a2a (HTTP+JSON at " << base << "/a2a/rest"
              << (s.grpc_target().empty() ? std::string() : ", gRPC at " + s.grpc_target()) << ", card " << base
              << "/.well-known/agent-card.json), ACP at " << base << "/acp, events at " << base
              << "/events, metrics at " << base << "/metrics, dashboard at " << base << "/; session " << s.session_id()
              << std::endl;
  }
  if (o.mcp_stdio) {
    Status st = s.serve_stdio();
    s.stop();
    return st ? 0 : serve_fail(st.error().message, 1);
  }
  wait_for_stop_signal();
  s.stop();
  return 0;
}

const bool serve_command_registered = register_command(
    "serve", "Serve the company over MCP (stdio and/or Streamable HTTP)", [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<ServeOptions>();
      cmd->add_option("--config", o->common.config_file, "YAML configuration file");
      cmd->add_option("--db", o->common.db, "SQLite journal file");
      cmd->add_option("--model", o->common.model, "CEO model ref, e.g. ollama:llama3.2");
      cmd->add_option("--session", o->common.session, "continue this session (its agents and budget)");
      cmd->add_flag("--mcp-stdio", o->mcp_stdio, "Serve MCP on stdin/stdout");
      cmd->add_option("--http", o->http,
                      "Serve MCP (and other protocols) over HTTP on ADDR:PORT (default host 127.0.0.1)");
      cmd->add_option(
          "--grpc", o->grpc,
          "Serve A2A's gRPC binding too, on ADDR:PORT (default host 127.0.0.1; with --http; same token and TLS)");
      cmd->add_option(
          "--token", o->token,
          "Bearer token HTTP clients must send (or $KAISHA_HTTP_TOKEN); required for non-loopback addresses");
      cmd->add_option("--fixture", o->fixture,
                      "Serve a test fixture instead of the company: conformance (MCP), a2a-tck (A2A)");
      cmd->add_option("--max-body", o->max_body_bytes, "Largest request body accepted, in bytes");
      cmd->add_option("--tls-cert", o->tls_cert,
                      "HTTPS: certificate (chain) PEM file (or serve.tls_cert in the config)");
      cmd->add_option("--tls-key", o->tls_key, "HTTPS: private key PEM file (or serve.tls_key in the config)");
      cmd->add_flag("--behind-tls-proxy", o->behind_tls_proxy,
                    "A TLS-terminating proxy is in front: allow a token over plain HTTP off loopback");
      return [o] { return serve(*o); };
    });

}  // namespace

}  // namespace kaisha::cli
