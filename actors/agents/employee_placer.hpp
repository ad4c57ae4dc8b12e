// Where the CEO's employees run. Without a placer the CEO spawns each hired
// employee in its own process; a cluster gives it a placer that picks a node
// for each one (model available, tags, free resource units) and returns the
// actor the CEO talks to: the employee itself when it runs here, or a local
// proxy for one on another node. Either way the CEO's code is the same.
//
// Both methods are called on the CEO actor's thread and must not block.
#pragma once

#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agents/employee_actor.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

class EmployeePlacer {
 public:
  virtual ~EmployeePlacer() = default;
  // Whether some node could take the employee now; asked before the hire is
  // charged, so a hire that cannot be placed costs nothing.
  virtual Status check(const msg::AgentSpec& spec) = 0;
  // Starts the employee and returns the actor to ask, spawned in `sys`.
  // `local` is how the employee would run in this process.
  virtual Result<caf::actor> place(caf::actor_system& sys, const msg::AgentSpec& spec, const EmployeeDeps& local) = 0;
};

}  // namespace kaisha::actors
