#include "actors/agents/environment_actor.hpp"

#include <exception>
#include <string>
#include <utility>

#include "actors/caf/atoms.hpp"

namespace kaisha::actors {
namespace {

company::ToolResult judge_request(driver::Environment& env, const std::string& request) {
  json args = json::parse(request, nullptr, false);
  if (args.is_discarded()) return company::ToolResult::error(env.name() + ": the request is not JSON");
  try {
    return env.judge(args);
  } catch (const std::exception& e) {
    return company::ToolResult::error(env.name() + " failed: " + e.what());
  } catch (...) {
    return company::ToolResult::error(env.name() + " failed with an exception that is not a std::exception");
  }
}

caf::behavior environment_actor(caf::event_based_actor* self, std::shared_ptr<driver::Environment> env) {
  // Ends with its strategy, whatever the reason (CAF's default handler
  // ignores a normal exit of a linked actor).
  self->set_exit_handler([self](caf::exit_msg& m) { self->quit(m.reason); });
  return {
      [env](environment_atom, const std::string& request) { return judge_request(*env, request); },
  };
}

}  // namespace

caf::actor spawn_environment(caf::local_actor* strategy, std::shared_ptr<driver::Environment> environment) {
  return strategy->spawn<caf::detached + caf::linked>(environment_actor, std::move(environment));
}

}  // namespace kaisha::actors
