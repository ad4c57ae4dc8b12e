#include "cluster/agent_host.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "cluster/cluster_atoms.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/messages/time_budget.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/telemetry/trace_context.hpp"

namespace kaisha::cluster {
namespace {

struct HostState {
  AgentHostDeps deps;
  std::map<std::string, caf::actor> employees;
  std::map<std::string, uint64_t> hires;                   // SpawnAgent::hire of each employee
  std::map<std::string, uint64_t> latest_hire;             // highest hire seen per name, kept after a stop
  std::set<std::pair<std::string, std::string>> mirrored;  // (session, task) with rows in this node's journal
  static inline const char* name = "agent_host";
};

using HostSelf = caf::stateful_actor<HostState>;

template <class T>
void answer(HostSelf* self, const msg::Envelope& request, const T& message) {
  auto& d = self->state.deps;
  msg::Envelope reply =
      msg::wrap(message, msg::AgentRef{d.node, request.to.name}, request.from, d.next_id(), request.id, request.trace);
  if (Status s = d.send(request.from.node, reply); !s.ok())
    d.log("could not answer " + request.type + " " + request.id + ": " + s.error().message);
}

void fail(HostSelf* self, const msg::Envelope& request, const std::string& code, const std::string& message) {
  answer(self, request, msg::RequestFailed{code, message});
}

// Hosted employees journal their steps under their CEO's session and task
// ids, which this node's journal must hold first (steps reference both). The
// journal runs its operations in the order they arrive, so the rows are there
// before the employee's first step.
void mirror_task(HostSelf* self, const msg::AskRequest& ask, const std::string& ceo_node) {
  auto& st = self->state;
  if (!st.deps.employee.journal || ask.session_id.empty()) return;
  if (!st.mirrored.emplace(ask.session_id, ask.task_id).second) return;
  const std::string node = st.deps.node;
  actors::journal_op(st.deps.employee.journal, actors::JournalOp([session = ask.session_id, task = ask.task_id, node,
                                                                  ceo_node](store::JournalStore& s) {
                       auto known = s.get_session(session);
                       if (known.ok() && !known->has_value()) {
                         store::SessionRow row;
                         row.id = session;
                         row.config = json{{"hosted_for", ceo_node}, {"node", node}};
                         if (Status st = s.create_session(row); !st.ok())
                           std::fprintf(stderr, "journal: %s\n", st.error().message.c_str());
                       }
                       if (task.empty()) return;
                       auto t = s.get_task(task);
                       if (t.ok() && !t->has_value())
                         if (Status st = s.start_task(session, task, "(asked by node " + ceo_node + ")"); !st.ok())
                           std::fprintf(stderr, "journal: %s\n", st.error().message.c_str());
                     }));
}

void serve(HostSelf* self, const msg::Envelope& env) {
  auto& st = self->state;
  if (env.type == msg::SpawnAgent::kType) {
    auto spawn = msg::unwrap<msg::SpawnAgent>(env);
    if (!spawn.ok()) return st.deps.log("bad spawn_agent from '" + env.from.node + "': " + spawn.error().message);
    const std::string name = spawn->spec.name;
    // Proxies start their employees lazily, so after a fire and a re-hire of
    // a name the two spawns may arrive in either order: the later hire wins.
    uint64_t& latest = st.latest_hire[name];
    if (spawn->hire != 0 && spawn->hire < latest)
      return st.deps.log("ignored a spawn of an earlier hire of '" + name + "' from '" + env.from.node + "'");
    latest = std::max(latest, spawn->hire);
    if (auto it = st.employees.find(name); it != st.employees.end())
      self->send_exit(it->second, caf::exit_reason::user_shutdown);
    st.hires[name] = spawn->hire;
    st.employees[name] = actors::spawn_employee(self->system(), std::move(spawn->spec), st.deps.employee);
    return;
  }
  if (env.type == msg::StopAgent::kType) {
    auto stop = msg::unwrap<msg::StopAgent>(env);
    if (!stop.ok()) return;
    if (stop->hire != 0 && st.hires[stop->name] != stop->hire) return;  // a later hire runs now
    if (auto it = st.employees.find(stop->name); it != st.employees.end()) {
      self->send_exit(it->second, caf::exit_reason::user_shutdown);
      st.employees.erase(it);
      st.hires.erase(stop->name);
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
    // The asker's time budget, as a deadline on this node's steady clock.
    const int64_t deadline = msg::receive_deadline(env, steady_ms(), wall_ms());
    if (deadline > 0 && deadline <= steady_ms())
      return fail(self, env, "timeout", "the ask reached node '" + st.deps.node + "' after its deadline");
    // This node's journal records the hosted employee's steps: while it is
    // behind the disk, no new ask starts here (journal_actor.hpp).
    if (Status room = actors::journal_room(st.deps.employee.journal); !room.ok())
      return fail(self, env, room.error().code, "node '" + st.deps.node + "': " + room.error().message);
    mirror_task(self, *ask, env.from.node);
    // The hop's span travels in the envelope and parents the employee's turn
    // (an older node sends the task id there, which the turn reads as "under
    // the task's root").
    if (!env.trace.empty() && (ask->trace.empty() || telemetry::parse_traceparent(env.trace))) ask->trace = env.trace;
    // No CAF timeout: each one costs the actor clock's thread two wake-ups
    // per ask, and none is needed. The employee always answers (its model
    // call has the call timeout), its mailbox bounces the ask if it stops
    // first, and the asking node holds the deadline of the whole request:
    // an answer after `deadline` finds nobody waiting and is not sent.
    self->request(it->second, caf::infinite, actors::ask_atom::value, std::move(*ask))
        .then(
            [=](msg::AskReply& reply) {
              if (deadline > 0 && steady_ms() > deadline) {
                self->state.deps.log("answer to " + env.id + " from '" + env.to.name +
                                     "' came after the asker's deadline; not sent");
                return;
              }
              answer(self, env, reply);
            },
            [=](caf::error& e) {
              fail(self, env, "failed", "agent '" + env.to.name + "': " + self->system().render(e));
            });
    return;
  }
  fail(self, env, "unsupported", "node '" + st.deps.node + "' does not serve '" + env.type + "'");
}

caf::behavior host(HostSelf* self, AgentHostDeps deps) {
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
