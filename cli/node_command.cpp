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

#include "api/node_host.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/stop_signals.hpp"
#include "cli/progress_printer.hpp"
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
  api::NodeHostOptions no;
  no.cluster = *cluster;
  no.cluster_file = o.config;
  no.name = o.name;
  no.company = *company;
  no.worker_journal = o.db;
  if (ceo) {
    // A CEO node that was killed picks its session up again and resumes
    // the tasks it was running.
    auto left = session_left_running(*company);
    if (!left.ok()) {
      std::cerr << "kaisha node: " << left.error().message << "\n";
      return 2;
    }
    no.session_id = *left;
    no.resume = !left->empty();
    no.progress = std::make_shared<ProgressPrinter>(o.json, o.quiet);
  }
  no.http = o.http;
  no.http_source = "--http";
  no.bearer_token = o.token;
  const bool quiet = o.quiet;
  no.log = [quiet](const std::string& line) {
    if (!quiet) std::cerr << line << std::endl;
  };
  auto node = api::NodeHost::start(std::move(no));
  if (!node.ok()) {
    std::cerr << "kaisha node: " << node.error().message << "\n";
    return 2;
  }
  if (!(*node)->dashboard_error().empty())
    std::cerr << "kaisha node: no dashboard: " << (*node)->dashboard_error() << std::endl;
  const std::string http = (*node)->http_url();
  std::cout << "node " << o.name << " listening on " << (*node)->endpoint() << (ceo ? " (CEO)" : "");
  if (!http.empty())
    std::cout << ", metrics at " << http << "/metrics"
              << (ceo ? ", events at " + http + "/events, dashboard at " + http + "/" : "");
  std::cout << std::endl;
  for (;;) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0 || sig != SIGHUP) break;
    // The node logs what the reload changed or why it was refused.
    (void)(*node)->reload();
  }
  (*node)->stop();
  return 0;
}

const bool node_command_registered =
    register_command("node", "run one node of a cluster (cluster.yaml)", [](CLI::App* cmd) {
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
