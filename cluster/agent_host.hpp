// The actor that runs the employees a node hosts for a CEO on another node.
// It serves three envelope types (delivered as (envelope_atom, Envelope)):
//   spawn_agent  start the employee (replacing one of the same name)
//   stop_agent   stop it (fired, or its CEO is gone)
//   ask_request  ask it; the AskReply goes back to the sender, correlated to
//                the request. An unknown agent is answered with RequestFailed
//                "unknown_agent", never left to time out.
// Employees make their model calls through `employee.model_client`, i.e. with
// this node's providers.
#pragma once

#include <functional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agents/employee_actor.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"

namespace kaisha::cluster {

struct AgentHostDeps {
  std::string node;  // this node's name
  actors::EmployeeDeps employee;
  std::function<Status(const std::string& node, const msg::Envelope&)> send;
  std::function<std::string()> next_id;
  std::function<void(const std::string&)> log;
};

caf::actor spawn_agent_host(caf::actor_system& sys, AgentHostDeps deps);

}  // namespace kaisha::cluster
