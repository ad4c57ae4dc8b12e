#include "kaisha/node.hpp"

#include <utility>

#include "api/node_host.hpp"
#include "runtime/config/config_loader.hpp"

namespace kaisha {

Result<std::unique_ptr<Node>> Node::start(NodeOptions options) {
  auto cluster = cluster::load_cluster_config(options.cluster_file);
  if (!cluster.ok()) return cluster.error();
  auto company = cluster->company_config.empty() ? Result<config::Config>(config::default_config())
                                                 : config::load_config_file(cluster->company_config);
  if (!company.ok()) return company.error();
  if (!options.db.empty()) company->store_path = options.db;
  api::NodeHostOptions o;
  o.cluster = std::move(cluster).value();
  o.cluster_file = options.cluster_file;
  o.name = options.name;
  o.company = std::move(company).value();
  o.worker_journal = options.db;
  o.session_id = options.session_id;
  o.resume = options.resume;
  o.http = options.http;
  o.http_source = "NodeOptions::http";
  o.bearer_token = options.bearer_token;
  o.progress = options.events;
  o.tools = std::move(options.tools);
  auto host = api::NodeHost::start(std::move(o));
  if (!host.ok()) return host.error();
  return std::unique_ptr<Node>(new Node(std::move(host).value()));
}

Node::Node(std::unique_ptr<api::NodeHost> host) : host_(std::move(host)) {}
Node::~Node() = default;

bool Node::is_ceo() const { return host_->ceo(); }
std::string Node::endpoint() const { return host_->endpoint(); }
std::string Node::http_url() const { return host_->http_url(); }
Status Node::reload() { return host_->reload(); }
void Node::stop() { host_->stop(); }

}  // namespace kaisha
