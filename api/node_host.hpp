// NodeHost: one node of a cluster as `kaisha node` runs it (docs/cluster.md):
// its gateway joined to the cluster of cluster.yaml; on the node marked
// `ceo: true` also the company (CEO, ledgers, journal), which takes tasks
// from `kaisha submit` and places employees on the nodes placement picks;
// on the others, the employees placement sends there, calling their models
// from there. With an HTTP address the node serves /metrics (every node),
// /events and the dashboard with its cluster panel (the CEO node). Used by
// `kaisha node` and by the public kaisha::Node.
//
// Threading: start() returns once the node listens; the node works on its
// own threads. reload() and stop() from one thread at a time. Errors:
// start() names what was wrong (the node's entry, a key, an address, a port)
// and leaves nothing running.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runtime/cluster/cluster_config.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::api {

struct NodeHostOptions {
  cluster::ClusterConfig cluster;
  std::string cluster_file;  // where `cluster` was read, for messages
  std::string name;          // this node's entry under `nodes`
  // The company's configuration (the CEO node's store, models, budget; the
  // employee settings of every node).
  config::Config company;
  // Not the CEO: this node's own journal of the steps of the employees it
  // hosts ("" = none). The CEO node journals in company.store_path.
  std::string worker_journal;
  // The CEO node: the session to continue ("" = a new one) and whether to
  // resume the tasks it left unfinished.
  std::string session_id;
  bool resume = false;
  // ADDR:PORT for /metrics (and /events and the dashboard on the CEO node);
  // "" = the node's `http` in cluster.yaml (none when unset).
  std::string http;
  std::string http_source = "http";  // names the option in errors ("--http")
  std::string bearer_token;          // "" = $KAISHA_HTTP_TOKEN
  // The CEO node: who else hears every event (e.g. a console); may be null.
  std::shared_ptr<company::ProgressSink> progress;
  // The CEO node: tools offered besides the company's own and the
  // configured MCP servers'.
  std::vector<std::shared_ptr<company::ToolSource>> tools;
  // Membership changes and reloads, one line each (stderr when unset).
  std::function<void(const std::string&)> log;
};

class NodeHost {
 public:
  static Result<std::unique_ptr<NodeHost>> start(NodeHostOptions options);
  ~NodeHost();
  NodeHost(const NodeHost&) = delete;
  NodeHost& operator=(const NodeHost&) = delete;

  bool ceo() const;
  // The ZeroMQ endpoint the node listens on (tcp://HOST:PORT).
  std::string endpoint() const;
  // "http://HOST:PORT" of /metrics and the rest; "" without HTTP.
  std::string http_url() const;
  // Set when the CEO node's dashboard could not be mounted (its files are
  // missing): the rest is served without it.
  const std::string& dashboard_error() const { return dashboard_error_; }
  // Re-reads cluster.yaml and applies what may change while running; the
  // node logs what changed. An error says why the new file was refused.
  Status reload();
  // Stops serving HTTP, the company, then the node. Idempotent.
  void stop();

 private:
  struct Parts;
  NodeHost();
  std::unique_ptr<Parts> parts_;
  std::string dashboard_error_;
};

}  // namespace kaisha::api
