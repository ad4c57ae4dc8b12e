// The environment actor: a strategy's environment (driver/environment.hpp)
// behind a mailbox of its own.
//
// Protocol: (environment_atom, std::string request) -> company::ToolResult
//   `request` is the RunTool's arguments as JSON text. Requests are judged
//   one at a time, in arrival order, on the actor's own thread (it is
//   detached), so a judgment that blocks — unit tests in the sandbox — holds
//   up no scheduler thread and no other actor. Text that is not JSON, and an
//   exception the environment throws, are answered as error results naming
//   the environment; the actor goes on.
//
// The actor is linked to the strategy actor that spawns it and ends with it,
// after the judgment under way (an environment bounds its own judgments: the
// sandbox's wall clock).
#pragma once

#include <memory>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/driver/environment.hpp"

namespace kaisha::actors {

caf::actor spawn_environment(caf::local_actor* strategy, std::shared_ptr<driver::Environment> environment);

}  // namespace kaisha::actors
