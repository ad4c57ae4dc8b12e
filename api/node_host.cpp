#include "api/node_host.hpp"

#include <optional>
#include <utility>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "api/dashboard_mount.hpp"
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
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::api {

// Declared in the order they start; destroyed in reverse.
struct NodeHost::Parts {
  bool ceo = false;
  std::unique_ptr<cluster::ClusterNode> node;
  std::vector<std::shared_ptr<void>> node_metrics;
  std::shared_ptr<company::EventLog> events = std::make_shared<company::EventLog>();
  std::unique_ptr<cluster::CompanyNode> company;
  std::unique_ptr<cluster::CeoNodeDashboard> dashboard;  // outlives the server that calls it
  std::unique_ptr<protocols::HttpServer> http;
};

NodeHost::NodeHost() : parts_(std::make_unique<Parts>()) {}
NodeHost::~NodeHost() { stop(); }

Result<std::unique_ptr<NodeHost>> NodeHost::start(NodeHostOptions o) {
  auto self_entry = o.cluster.node(o.name);
  if (!self_entry.ok()) return self_entry.error();
  const bool ceo = self_entry->capabilities.ceo;
  // The option, else the node's `http` in cluster.yaml. Metrics are kept
  // only when someone can read them.
  const std::string http_address = o.http.empty() ? self_entry->http : o.http;
  const std::string http_source = o.http.empty() ? o.cluster_file + ": nodes." + o.name + ".http" : o.http_source;
  std::optional<protocols::HostPort> http_at;
  if (!http_address.empty()) {
    auto hp = protocols::parse_host_port(http_address);
    if (!hp) return Error{"usage", http_source + ": " + hp.error().message};
    http_at = *hp;
  }
  telemetry::MetricsRegistry* metrics = http_at ? &telemetry::default_registry() : nullptr;

  std::unique_ptr<NodeHost> self(new NodeHost());
  Parts& p = *self->parts_;
  p.ceo = ceo;
  cluster::NodeOptions no;
  no.cluster = o.cluster;
  no.name = o.name;
  no.company = o.company;
  no.metrics = metrics;
  if (!ceo) {
    no.chat = actors::make_provider_chat_client(o.company);  // employees hosted here call models from here
    if (metrics) no.chat = telemetry::metered(no.chat, *metrics);
    no.journal_path = o.worker_journal;  // only when asked: the company config's store is the CEO node's
  }
  no.log = o.log;
  auto node = cluster::ClusterNode::start(std::move(no));
  if (!node.ok()) return node.error();
  p.node = std::move(node).value();
  if (metrics) p.node_metrics = cluster::cluster_metrics(*metrics, *p.node);
  if (ceo) {
    actors::RuntimeOptions ro;
    ro.config = o.company;
    ro.scheduler_threads = 2;
    ro.session_id = o.session_id;
    ro.resume = o.resume;
    ro.tool_sources = mcp::start_mcp_servers(o.company.mcp_servers);
    for (auto& t : o.tools) ro.tool_sources.push_back(std::move(t));
    ro.metrics = metrics;
    std::shared_ptr<company::ProgressSink> progress = o.progress;
    if (http_at)
      progress = std::make_shared<company::ProgressFanOut>(
          std::vector<std::shared_ptr<company::ProgressSink>>{progress, p.events});
    auto cn = cluster::CompanyNode::start(*p.node, std::move(ro), o.cluster.rehire_lost_agents, progress,
                                          o.cluster.max_waiting_tasks);
    if (!cn.ok()) return cn.error();
    p.company = std::move(cn).value();
  }
  if (http_at) {
    protocols::HttpServerOptions ho;
    ho.host = http_at->host;
    ho.port = http_at->port;
    ho.bearer_token = protocols::resolve_bearer_token(o.bearer_token);
    p.http = std::make_unique<protocols::HttpServer>(ho);
    telemetry_http::mount_metrics(*p.http, *metrics);
    if (ceo) {
      telemetry_http::mount_events(*p.http, p.events);
      p.dashboard = std::make_unique<cluster::CeoNodeDashboard>(*p.company);
      if (Status d = mount_company_dashboard(*p.http, *p.dashboard, o.company, p.company->runtime().session_id());
          !d.ok())
        self->dashboard_error_ = d.error().message;
    }
    auto port = p.http->start();
    if (!port) return Error{"bind", http_source + ": " + port.error().message};
  }
  return self;
}

bool NodeHost::ceo() const { return parts_ && parts_->ceo; }
std::string NodeHost::endpoint() const { return parts_ && parts_->node ? parts_->node->endpoint() : std::string(); }
std::string NodeHost::http_url() const { return parts_ && parts_->http ? parts_->http->base_url() : std::string(); }

Status NodeHost::reload() {
  if (!parts_) return Error{"stopped", "the node has stopped"};
  auto changed = parts_->node->reload();
  if (!changed.ok()) return changed.error();
  return Status::Ok();
}

void NodeHost::stop() {
  if (!parts_) return;
  if (parts_->http) parts_->http->stop();
  parts_->company.reset();
  parts_->node_metrics.clear();
  if (parts_->node) parts_->node->stop();
  parts_.reset();
}

}  // namespace kaisha::api
