// Placement: which node hosts a new agent. A node qualifies when it is alive,
// not excluded, serves the agent's model, carries every required tag and has
// enough free resource units. Among qualifying nodes the one with the most
// free units wins; ties go to the alphabetically first name, so the same
// inputs always give the same node.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/messages/cluster_messages.hpp"

namespace kaisha::cluster {

struct PlacementRequest {
  std::string agent;
  std::string model;      // cost-table name, e.g. "llama3.2"
  std::string model_ref;  // provider:model, e.g. "ollama:llama3.2"
  std::vector<std::string> tags;
  double units = 0;
  std::vector<std::string> exclude;  // e.g. the node an agent was just lost on
};

struct PlacementCandidate {
  std::string node;
  msg::NodeCapabilities capabilities;
  double free_units = 0;
  bool alive = true;
};

// True when `caps` lists the model (by name, model ref, or the ref's model
// part) or lists no models at all.
bool serves_model(const msg::NodeCapabilities& caps, const std::string& model, const std::string& model_ref);

// The chosen node, or an Error (code "placement") saying why each node was
// turned down.
Result<std::string> place(const PlacementRequest& request, const std::vector<PlacementCandidate>& candidates);

}  // namespace kaisha::cluster
