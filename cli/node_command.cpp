// kaisha node --config cluster.yaml --name NAME: run one node of a cluster
// until SIGINT/SIGTERM. SIGHUP re-reads cluster.yaml (ClusterNode::reload):
// no handler runs in signal context; the main thread waits for the signals
// with sigwait and reloads on its own stack. The node marked `ceo: true` also runs the company
// (CEO, ledgers, journal) and accepts `kaisha submit`; the others host the
// employees placement sends them. The first stdout line says where the node
// listens; membership changes and progress go to stderr. With --http
// ADDR:PORT (or the node's `http` in cluster.yaml) the node serves /metrics
// there (every node), and /events and the dashboard (the CEO node), under the
// same token and Host/Origin rules as `kaisha serve`.
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/dashboard_wiring.hpp"
#include "cli/stop_signals.hpp"
#include "cli/progress_printer.hpp"
#include "cluster/ceo_node_dashboard.hpp"
#include "cluster/cluster_metrics.hpp"
#include "cluster/cluster_node.hpp"
#include "cluster/company_node.hpp"
#include "protocols/http/bind_policy.hpp"
#include "protocols/http/http_server.hpp"
#include "protocols/mcp/client/mcp_servers_start.hpp"
#include "protocols/telemetry/events_endpoint.hpp"
#include "protocols/telemetry/metrics_endpoint.hpp"
#include "runtime/company/event_log.hpp"
#include "runtime/company/progress_fan_out.hpp"
#include "runtime/telemetry/metered_chat_client.hpp"
#include "runtime/cluster/cluster_config.hpp"

namespace kaisha::cli {
namespace {

struct NodeCommandOptions {
  std::string config;
  std::string name;
  std::string db;
  std::string http;  // ADDR:PORT for /metrics (and /events on the CEO node); "" = none
  std::string token;
  bool json = false;
  bool quiet = false;
};

int run_node(const NodeCommandOptions& o) {
  auto cluster = cluster::load_cluster_config(o.config);
  if (!cluster.ok()) {
    std::cerr << "kaisha node: " << cluster.error().message << "\n";
    return 2;
  }
  auto self = cluster->node(o.name);
  if (!self.ok()) {
    std::cerr << "kaisha node: " << self.error().message << "\n";
    return 2;
  }
  const bool ceo = self->capabilities.ceo;
  CommonOptions co;
  co.config_file = cluster->company_config;
  co.db = o.db;
  auto company = load_cli_config(co, /*needs_model=*/ceo);
  if (!company.ok()) {
    std::cerr << "kaisha node: " << company.error().message << "\n";
    return 2;
  }
  // Before any thread starts, so that only the sigwait below sees them.
  sigset_t signals = stop_signal_set();
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (Status t = start_tracing(*company, o.name); !t.ok()) {  // the exporter's thread
    std::cerr << "kaisha node: " << t.error().message << "\n";
    return 2;
  }

  // --http, else the node's `http` in cluster.yaml. Metrics are kept only
  // when someone can read them.
  const std::string http_address = o.http.empty() ? self->http : o.http;
  const std::string http_source = o.http.empty() ? o.config + ": nodes." + o.name + ".http" : "--http";
  telemetry::MetricsRegistry* metrics = http_address.empty() ? nullptr : &telemetry::default_registry();
  std::optional<protocols::HostPort> http_at;
  if (!http_address.empty()) {
    auto hp = protocols::parse_host_port(http_address);
    if (!hp) {
      std::cerr << "kaisha node: " << http_source << ": " << hp.error().message << "\n";
      return 2;
    }
    http_at = *hp;
  }
  cluster::NodeOptions no;
  no.cluster = *cluster;
  no.name = o.name;
  no.company = *company;
  no.metrics = metrics;
  if (!ceo) {
    no.chat = actors::make_provider_chat_client(*company);  // employees hosted here call models from here
    if (metrics) no.chat = telemetry::metered(no.chat, *metrics);
    no.journal_path = o.db;  // only when asked: the company config's store is the CEO node's
  }
  const bool quiet = o.quiet;
  no.log = [quiet](const std::string& line) {
    if (!quiet) std::cerr << line << std::endl;
  };
  auto node = cluster::ClusterNode::start(no);
  if (!node.ok()) {
    std::cerr << "kaisha node: " << node.error().message << "\n";
    return 2;
  }
  std::vector<std::shared_ptr<void>> node_metrics;
  if (metrics) node_metrics = cluster::cluster_metrics(*metrics, **node);
  auto events = std::make_shared<company::EventLog>();
  std::unique_ptr<cluster::CompanyNode> company_node;
  if (ceo) {
    actors::RuntimeOptions ro;
    ro.config = *company;
    ro.scheduler_threads = 2;
    // A CEO node that was killed picks its session up again and resumes
    // the tasks it was running.
    auto left = session_left_running(*company);
    if (!left.ok()) {
      std::cerr << "kaisha node: " << left.error().message << "\n";
      return 2;
    }
    ro.session_id = *left;
    ro.resume = !left->empty();
    ro.tool_sources = mcp::start_mcp_servers(company->mcp_servers);
    ro.metrics = metrics;
    std::shared_ptr<company::ProgressSink> progress = std::make_shared<ProgressPrinter>(o.json, o.quiet);
    if (http_at)
      progress = std::make_shared<company::ProgressFanOut>(
          std::vector<std::shared_ptr<company::ProgressSink>>{progress, events});
    auto cn =
        cluster::CompanyNode::start(**node, ro, cluster->rehire_lost_agents, progress, cluster->max_waiting_tasks);
    if (!cn.ok()) {
      std::cerr << "kaisha node: " << cn.error().message << "\n";
      return 2;
    }
    company_node = std::move(cn).value();
  }
  std::unique_ptr<cluster::CeoNodeDashboard> dashboard_company;  // outlives the server
  std::unique_ptr<protocols::HttpServer> http;
  if (http_at) {
    protocols::HttpServerOptions ho;
    ho.host = http_at->host;
    ho.port = http_at->port;
    ho.bearer_token = protocols::resolve_bearer_token(o.token);
    http = std::make_unique<protocols::HttpServer>(ho);
    telemetry_http::mount_metrics(*http, *metrics);
    if (ceo) {
      telemetry_http::mount_events(*http, events);
      dashboard_company = std::make_unique<cluster::CeoNodeDashboard>(*company_node);
      mount_dashboard_or_warn(*http, *dashboard_company, *company, company_node->runtime().session_id(), "kaisha node");
    }
    auto port = http->start();
    if (!port) {
      std::cerr << "kaisha node: " << http_source << ": " << port.error().message << "\n";
      return 2;
    }
  }
  std::cout << "node " << o.name << " listening on " << (*node)->endpoint() << (ceo ? " (CEO)" : "");
  if (http)
    std::cout << ", metrics at " << http->base_url() << "/metrics"
              << (ceo ? ", events at " + http->base_url() + "/events, dashboard at " + http->base_url() + "/" : "");
  std::cout << std::endl;
  for (;;) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0 || sig != SIGHUP) break;
    // The node logs what the reload changed or why it was refused.
    (void)(*node)->reload();
  }
  if (http) http->stop();
  company_node.reset();
  node_metrics.clear();
  (*node)->stop();
  return 0;
}

const bool registered = register_command("node", "run one node of a cluster (cluster.yaml)", [](CLI::App* cmd) {
  auto o = std::make_shared<NodeCommandOptions>();
  cmd->add_option("--config", o->config, "cluster file (cluster.yaml)")->required();
  cmd->add_option("--name", o->name, "this node's entry under 'nodes'")->required();
  cmd->add_option("--db", o->db,
                  "SQLite store: the CEO node's (default: the company config's); on another node, its own "
                  "journal of the steps of the employees it hosts (default: none)");
  cmd->add_option("--http", o->http,
                  "serve /metrics (and /events and the dashboard on the CEO node) on ADDR:PORT (default host "
                  "127.0.0.1); "
                  "overrides the node's `http` in cluster.yaml");
  cmd->add_option("--token", o->token,
                  "bearer token --http clients must send (or $KAISHA_HTTP_TOKEN); required off loopback");
  cmd->add_flag("--json", o->json, "progress as JSON lines on stdout");
  cmd->add_flag("-q,--quiet", o->quiet, "no progress or membership lines on stderr");
  return [o] { return run_node(*o); };
});

}  // namespace
}  // namespace kaisha::cli
