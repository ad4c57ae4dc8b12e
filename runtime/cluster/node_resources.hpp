// The resource units of every node and which agent holds how many where:
// the per-node half of the economy (the expense ledger stays cluster-wide on
// the CEO's node). A placement reserves an agent's units on its node; firing
// the agent, or losing its node, releases them.
//
// Invariant: used(node) <= capacity(node) for every node, and each agent holds
// units on at most one node. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::cluster {

class NodeResources {
 public:
  void set_capacity(const std::string& node, double units);
  double capacity(const std::string& node) const;
  double used(const std::string& node) const;
  double free(const std::string& node) const { return capacity(node) - used(node); }

  // Fails, changing nothing, when `node` has fewer than `units` free or the
  // agent already holds units somewhere.
  Status reserve(const std::string& node, const std::string& agent, double units);
  // Releases the agent's units; returns the node they were on.
  std::optional<std::string> release(const std::string& agent);
  // Releases everything on `node` (it went down); returns the agents that were there.
  std::vector<std::string> release_node(const std::string& node);

  std::optional<std::string> node_of(const std::string& agent) const;
  std::vector<std::string> agents_on(const std::string& node) const;

 private:
  struct Hold {
    std::string node;
    double units = 0;
  };
  std::map<std::string, double> capacity_;
  std::map<std::string, Hold> holds_;  // by agent
};

}  // namespace kaisha::cluster
