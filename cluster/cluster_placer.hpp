// ClusterPlacer: the CEO node's EmployeePlacer and the registry of where
// each employee runs. It places a new employee on a node that serves its
// model, carries its model's tags (the cost table's `tags`) and has its
// resource units free (placement.hpp), reserves the units there
// (node_resources.hpp), and returns the employee itself when the chosen node
// is this one, or a EmployeeProxy proxy otherwise. Either way the units come
// back when the employee stops.
//
// When a node goes down, restarts or is removed by a reload, its employees are marked lost and
// their units released; each proxy is told, and by policy (rehire, default
// on) moves its employee to another node and retries an interrupted ask once.
// The hire is not charged again: the expense ledger on the CEO node charged
// it once, and the interrupted ask's reservation is settled once.
//
// Journal. Once journal_to() named the session, a loss is written to the
// agents table of the CEO node's journal (the hire marked lost, so `kaisha
// agents` shows it and a resumed session does not count on it) and a re-hire
// elsewhere as a new hire of the same spec. The journal is the one the CEO's
// employees get (EmployeeDeps::journal).
//
// Thread-safe: membership events arrive on the node's threads.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>

#include "actors/caf/atoms.hpp"
#include "actors/agents/employee_placer.hpp"
#include "cluster/cluster_node.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/cluster/node_resources.hpp"
#include "runtime/cluster/placement.hpp"
#include "runtime/company/progress_sink.hpp"

namespace kaisha::cluster {

struct PlacerOptions {
  bool rehire = true;                               // move lost employees and retry their interrupted ask once
  int64_t ask_timeout_ms = 600000;                  // deadline of one cross-node ask
  std::shared_ptr<company::ProgressSink> progress;  // node_down / rehire events; may be null
};

class ClusterPlacer : public actors::EmployeePlacer, public std::enable_shared_from_this<ClusterPlacer> {
 public:
  // Subscribes to `node`'s membership; `node` must outlive the placer.
  static std::shared_ptr<ClusterPlacer> create(ClusterNode& node, PlacerOptions options);

  Status check(const msg::AgentSpec& spec) override;
  Result<caf::actor> place(caf::actor_system& sys, const msg::AgentSpec& spec,
                           const actors::EmployeeDeps& local) override;

  // A new node for `spec`, never `lost_on`; its units are reserved there.
  Result<std::string> relocate(const msg::AgentSpec& spec, const std::string& lost_on);
  // Hire `hire` of `agent` stopped (fired): its units are released, unless
  // a later hire of the name has taken its place.
  void release(const std::string& agent, uint64_t hire);
  // The session whose agents table records losses and re-hires.
  void journal_to(std::string session_id);

  // [{name, node, model, units, state}] and per node {used, capacity}.
  json agents() const;
  json resources() const;

  ClusterNode& node() { return node_; }
  const PlacerOptions& options() const { return options_; }
  // A progress event about `agent` on cluster node `node`.
  void emit(msg::EventKind kind, const std::string& agent, const std::string& node, const std::string& text, json data);

 private:
  ClusterPlacer(ClusterNode& node, PlacerOptions options)
      : node_(node), options_(std::move(options)), hires_(uint64_t(wall_ms()) * 1000) {}
  void on_membership(const MembershipEvent& e);
  PlacementRequest request_for(const msg::AgentSpec& spec) const;
  Result<std::string> choose(const PlacementRequest& r);  // mu_ held

  struct Entry {
    msg::AgentSpec spec;
    std::string node;
    double units = 0;
    std::string state = "hired";  // hired | lost
    caf::actor_addr proxy;        // invalid when the employee runs on this node
    uint64_t hire = 0;            // which place() made it (names are reused)
  };

  ClusterNode& node_;
  PlacerOptions options_;
  mutable std::mutex mu_;
  NodeResources resources_;
  std::map<std::string, Entry> agents_;
  // Hire numbers rise across restarts of the CEO node too (they start at its
  // start time in ms × 1000), so a hosting node can tell a late message about an
  // earlier hire from one about a later hire of the same name.
  uint64_t hires_;
  // From the EmployeeDeps of the first placement. Weak: a detached journal's
  // thread ends only when its last strong handle is gone, so holding one here
  // would keep the actor system from shutting down.
  caf::actor_addr journal_;
  std::string session_id_;
};

}  // namespace kaisha::cluster
