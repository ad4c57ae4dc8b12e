#include "cluster/agent_host.hpp"

#include <map>

#include "actors/atoms.hpp"
#include "cluster/cluster_atoms.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"

namespace kaisha::cluster {
namespace {

struct HostState {
  AgentHostDeps deps;
  std::map<std::string, caf::actor> employees;
  static inline const char* name = "agent_host";
};

using Self = caf::stateful_actor<HostState>;

template <class T>
void answer(Self* self, const msg::Envelope& request, const T& message) {
  auto& d = self->state.deps;
  msg::Envelope reply = msg::wrap(message, request.to, request.from, d.next_id(), request.id, request.trace);
  if (Status s = d.send(request.from.node, reply); !s.ok())
    d.log("could not answer " + request.type + " " + request.id + ": " + s.error().message);
}

void fail(Self* self, const msg::Envelope& request, const std::string& code, const std::string& message) {
  answer(self, request, msg::RequestFailed{code, message});
}

void serve(Self* self, const msg::Envelope& env) {
  auto& st = self->state;
  if (env.type == msg::SpawnAgent::kType) {
    auto spawn = msg::unwrap<msg::SpawnAgent>(env);
    if (!spawn.ok()) return st.deps.log("bad spawn_agent from '" + env.from.node + "': " + spawn.error().message);
    const std::string name = spawn->spec.name;
    if (auto it = st.employees.find(name); it != st.employees.end())
      self->send_exit(it->second, caf::exit_reason::user_shutdown);
    st.employees[name] = actors::spawn_employee(self->system(), std::move(spawn->spec), st.deps.employee);
    return;
  }
  if (env.type == msg::StopAgent::kType) {
    auto stop = msg::unwrap<msg::StopAgent>(env);
    if (!stop.ok()) return;
    if (auto it = st.employees.find(stop->name); it != st.employees.end()) {
      self->send_exit(it->second, caf::exit_reason::user_shutdown);
      st.employees.erase(it);
    }
    return;
  }
  if (env.type == msg::AskRequest::kType) {
    auto ask = msg::unwrap<msg::AskRequest>(env);
    if (!ask.ok()) return fail(self, env, "malformed", ask.error().message);
    auto it = st.employees.find(env.to.name);
    if (it == st.employees.end())
      return fail(self, env, "unknown_agent",
                  "agent '" + env.to.name + "' is not hosted on node '" + st.deps.node + "'");
    self->request(it->second, st.deps.employee.call_timeout, actors::ask_atom::value, std::move(*ask))
        .then([=](msg::AskReply& reply) { answer(self, env, reply); },
              [=](caf::error& e) { fail(self, env, "failed", "agent '" + env.to.name + "': " + self->system().render(e)); });
    return;
  }
  fail(self, env, "unsupported", "node '" + st.deps.node + "' does not serve '" + env.type + "'");
}

caf::behavior host(Self* self, AgentHostDeps deps) {
  self->state.deps = std::move(deps);
  self->set_exit_handler([self](caf::exit_msg& m) {
    for (auto& [_, e] : self->state.employees) self->send_exit(e, m.reason);
    self->state.employees.clear();
    self->quit(m.reason);
  });
  return {
      [=](envelope_atom, const msg::Envelope& env) { serve(self, env); },
  };
}

}  // namespace

caf::actor spawn_agent_host(caf::actor_system& sys, AgentHostDeps deps) { return sys.spawn(host, std::move(deps)); }

}  // namespace kaisha::cluster
