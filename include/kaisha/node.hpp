// kaisha/node.hpp: join a cluster of kaisha nodes (docs/cluster.md) from a
// program, as `kaisha node --config cluster.yaml --name NAME` does. The node
// named `ceo: true` in cluster.yaml runs the company (CEO, ledgers, journal)
// and takes tasks from `kaisha submit`; the others host the employees
// placement sends them and call their models from there. Nodes talk over
// ZeroMQ with the CURVE keys cluster.yaml names; a node whose peer is lost
// goes on, and the CEO node hires lost employees again elsewhere when
// cluster.yaml says so.
//
// Threading: start() returns once the node listens; it works on its own
// threads while the caller goes on. reload() and stop() from one thread at a
// time. Ownership: start() returns the only owner; destroying the Node
// leaves the cluster (the CEO node's journal committed). Errors: start()
// returns an Error naming what was wrong — cluster.yaml's or the company
// configuration's file, line and key, a node name it does not list, a key
// file, an address or port — and leaves nothing running.
#pragma once

#include <memory>
#include <string>

#include "kaisha/company.hpp"

namespace kaisha {

namespace api {
class NodeHost;
}

struct NodeOptions {
  std::string cluster_file;  // cluster.yaml
  std::string name;          // this node's entry under `nodes`
  // The CEO node: its store ("" = the company configuration's). Another
  // node: its own journal of the employees' steps it hosts ("" = none).
  std::string db;
  // The CEO node: the session to continue ("" = a new one); with resume,
  // the tasks it left unfinished are run again from the journal.
  std::string session_id;
  bool resume = false;
  // ADDR:PORT for /metrics (and /events and the dashboard on the CEO node);
  // "" = the node's `http` in cluster.yaml, none when that is unset too.
  std::string http;
  std::string bearer_token;  // "" = $KAISHA_HTTP_TOKEN; required off loopback
  // The CEO node: who hears the company's live events; may be null.
  std::shared_ptr<EventSink> events;
  // The CEO node: tools offered besides the company's own.
  std::vector<std::shared_ptr<ToolSource>> tools;
};

class Node {
 public:
  static Result<std::unique_ptr<Node>> start(NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  bool is_ceo() const;
  // Where the node listens for its peers ("tcp://HOST:PORT").
  std::string endpoint() const;
  // "http://HOST:PORT" of /metrics and the rest; "" without HTTP.
  std::string http_url() const;
  // Re-reads cluster.yaml: nodes added, removed or re-keyed take effect.
  // An error (and nothing changed) when the new file is refused.
  Status reload();
  // Leaves the cluster. Idempotent.
  void stop();

 private:
  explicit Node(std::unique_ptr<api::NodeHost> host);
  std::unique_ptr<api::NodeHost> host_;
};

}  // namespace kaisha
