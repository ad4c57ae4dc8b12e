// EmployeeProxy: the local stand-in for an employee that runs on another
// node, so the CEO asks it exactly as it asks a local employee:
//   (ask_atom, msg::AskRequest) -> msg::AskReply
// An ask travels as an ask_request envelope to the hosting node and its
// AskReply comes back correlated to it. It always ends: with the reply, a
// timeout, or at once with a "node_down" AskReply (ok=false) when the node
// is declared down. With the rehire policy on, the employee is first moved
// to another node (placer.relocate) and the ask is retried there once.
//
// On start it asks its node to spawn the employee; on exit (fired, CEO gone)
// it asks the node to stop it and releases its resource units.
#pragma once

#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "runtime/messages/agent_messages.hpp"

namespace kaisha::cluster {

class ClusterPlacer;

// `hire` tells this hire of the name from a later one (ClusterPlacer counts them).
caf::actor spawn_employee_proxy(caf::actor_system& sys, msg::AgentSpec spec, std::string node,
                                std::shared_ptr<ClusterPlacer> placer, uint64_t hire);

}  // namespace kaisha::cluster
