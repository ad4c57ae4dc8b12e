#include "cluster/employee_proxy.hpp"

#include <map>

#include "actors/caf/atoms.hpp"
#include "cluster/cluster_atoms.hpp"
#include "cluster/cluster_placer.hpp"
#include "cluster/inline_delivery.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::cluster {
namespace {

struct PendingAsk {
  caf::typed_response_promise<msg::AskReply> promise;
  msg::AskRequest ask;
  bool retried = false;
  // The hop to the employee's node ("ask {agent}", a client span) now in
  // flight; its traceparent travels as the envelope's trace field, so the
  // remote turn is its child. Empty when tracing is off.
  telemetry::Span hop;
};

// Ends the ask's hop span: an error when the node did not answer.
void end_hop(PendingAsk& p, const std::string& error) {
  if (p.hop.span_id.empty()) return;
  telemetry::end_span(p.hop, error.empty() ? telemetry::SpanStatus::ok : telemetry::SpanStatus::error, error);
}

struct RemoteState {
  msg::AgentSpec spec;
  std::string node;         // where the employee runs now
  std::string lost_reason;  // set when it was lost and could not be moved
  std::shared_ptr<ClusterPlacer> placer;
  uint64_t hire = 0;
  std::map<std::string, PendingAsk> asks;  // by request id
  static inline const char* name = "employee_proxy";
};

using ProxySelf = caf::stateful_actor<RemoteState>;

msg::AskReply failed(const std::string& agent, const std::string& error) {
  msg::AskReply r;
  r.agent = agent;
  r.ok = false;
  r.error = error;
  return r;
}

void spawn_on_node(ProxySelf* self) {
  auto& st = self->state;
  ClusterNode& node = st.placer->node();
  msg::Envelope e =
      msg::wrap(msg::SpawnAgent{st.spec, st.hire}, {node.name(), "CEO"}, {st.node, st.spec.name}, node.next_id());
  if (Status s = node.send(st.node, e); !s.ok())
    st.lost_reason = "cannot start agent '" + st.spec.name + "' on node '" + st.node + "': " + s.error().message;
}

void send_ask(ProxySelf* self, const std::string& id) {
  auto& st = self->state;
  auto it = st.asks.find(id);
  if (it == st.asks.end()) return;
  ClusterNode& node = st.placer->node();
  PendingAsk& p = it->second;
  // A trace field that is not a traceparent (an older CEO sent the task id)
  // still joins the task's trace on the other node: it parents to the root.
  p.hop = telemetry::begin_span("ask " + st.spec.name, telemetry::SpanKind::client, p.ask.trace, p.ask.task_id);
  if (!p.hop.span_id.empty()) {
    p.hop.set(telemetry::attr::kGenAiAgentName, st.spec.name);
    p.hop.set("kaisha.node.target", st.node);
    if (p.retried) p.hop.set("kaisha.retry", true);
  }
  const std::string trace = p.hop.span_id.empty() ? p.ask.task_id : telemetry::traceparent_of(p.hop);
  msg::Envelope e =
      msg::wrap(p.ask, {node.name(), "CEO"}, {st.node, st.spec.name}, id + (p.retried ? "-retry" : ""), "", trace);
  caf::actor me = caf::actor_cast<caf::actor>(self);
  const std::string target = st.node;
  node.request(target, std::move(e), st.placer->options().ask_timeout_ms, [me, id, target](Result<msg::Envelope> r) {
    RemoteOutcome o;
    o.request_id = id;
    o.node = target;
    o.ok = r.ok();
    if (r.ok())
      o.reply = std::move(r).value();
    else
      o.error = r.error();
    deliver(me, caf::make_message(outcome_atom::value, std::move(o)));
  });
}

// The employee's node is gone: move it if the policy says so.
void relocate(ProxySelf* self, const std::string& lost_on) {
  auto& st = self->state;
  if (st.node != lost_on || !st.lost_reason.empty()) return;
  if (!st.placer->options().rehire) {
    st.lost_reason = "agent '" + st.spec.name + "' was lost with node '" + lost_on + "'";
    return;
  }
  auto moved = st.placer->relocate(st.spec, lost_on);
  if (!moved.ok()) {
    st.lost_reason = "agent '" + st.spec.name + "' was lost with node '" + lost_on +
                     "' and cannot be re-hired elsewhere: " + moved.error().message;
    st.placer->emit(msg::EventKind::error, st.spec.name, lost_on, st.lost_reason,
                    json{{"agent", st.spec.name}, {"node", lost_on}});
    return;
  }
  st.node = *moved;
  spawn_on_node(self);
  st.placer->emit(msg::EventKind::rehire, st.spec.name, st.node,
                  st.spec.name + " re-hired on node " + st.node + " after node " + lost_on + " went down",
                  json{{"agent", st.spec.name}, {"from", lost_on}, {"to", st.node}});
}

void finish(ProxySelf* self, const std::string& id, msg::AskReply reply) {
  auto it = self->state.asks.find(id);
  if (it == self->state.asks.end()) return;
  end_hop(it->second, reply.ok ? "" : reply.error);
  it->second.promise.deliver(std::move(reply));
  self->state.asks.erase(it);
}

void on_outcome(ProxySelf* self, RemoteOutcome& o) {
  auto& st = self->state;
  auto it = st.asks.find(o.request_id);
  if (it == st.asks.end()) return;
  if (o.ok) {
    if (o.reply.type == msg::AskReply::kType) {
      auto reply = msg::unwrap<msg::AskReply>(o.reply);
      if (reply.ok()) return finish(self, o.request_id, std::move(*reply));
      return finish(self, o.request_id,
                    failed(st.spec.name, "bad reply from node '" + o.reply.from.node + "': " + reply.error().message));
    }
    if (o.reply.type == msg::RequestFailed::kType) {
      auto f = msg::unwrap<msg::RequestFailed>(o.reply);
      return finish(self, o.request_id, failed(st.spec.name, f.ok() ? f->code + ": " + f->message : f.error().message));
    }
    return finish(self, o.request_id,
                  failed(st.spec.name, "unexpected '" + o.reply.type + "' from node '" + o.reply.from.node + "'"));
  }
  // The request's node is gone (node_down) or it restarted: move and retry once.
  const bool lost = o.error.code == "node_down";
  if (lost && st.placer->options().rehire && !it->second.retried) {
    relocate(self, o.node);  // a no-op when a lost_atom moved it already
    if (st.lost_reason.empty()) {
      end_hop(it->second, o.error.code + ": " + o.error.message);
      it->second.retried = true;
      st.placer->emit(msg::EventKind::retry, st.spec.name, st.node,
                      "retrying the interrupted ask to " + st.spec.name + " on node " + st.node,
                      json{{"agent", st.spec.name}, {"node", st.node}});
      return send_ask(self, o.request_id);
    }
    return finish(self, o.request_id, failed(st.spec.name, "node_down: " + st.lost_reason));
  }
  if (lost && st.lost_reason.empty() && !st.placer->options().rehire)
    st.lost_reason = "agent '" + st.spec.name + "' was lost with node '" + o.node + "': " + o.error.message;
  finish(self, o.request_id, failed(st.spec.name, o.error.code + ": " + o.error.message));
}

caf::behavior employee_proxy(ProxySelf* self, msg::AgentSpec spec, std::string node,
                             std::shared_ptr<ClusterPlacer> placer, uint64_t hire) {
  auto& st = self->state;
  st.hire = hire;
  st.spec = std::move(spec);
  st.node = std::move(node);
  st.placer = std::move(placer);
  spawn_on_node(self);
  self->set_exit_handler([self](caf::exit_msg& m) {
    auto& s = self->state;
    for (auto& [id, a] : s.asks) a.promise.deliver(failed(s.spec.name, "agent '" + s.spec.name + "' was stopped"));
    s.asks.clear();
    ClusterNode& n = s.placer->node();
    if (s.lost_reason.empty())
      (void)n.send(s.node, msg::wrap(msg::StopAgent{s.spec.name, s.hire}, {n.name(), "CEO"}, {s.node, s.spec.name},
                                     n.next_id()));
    s.placer->release(s.spec.name, s.hire);
    self->quit(m.reason);
  });
  return {
      [=](actors::ask_atom, msg::AskRequest& ask) -> caf::result<msg::AskReply> {
        auto& s = self->state;
        auto promise = self->make_response_promise<msg::AskReply>();
        if (!s.lost_reason.empty()) {
          promise.deliver(failed(s.spec.name, "node_down: " + s.lost_reason));
          return promise;
        }
        const std::string id = s.placer->node().next_id();
        s.asks.emplace(id, PendingAsk{promise, std::move(ask), false, {}});
        send_ask(self, id);
        return promise;
      },
      [=](outcome_atom, RemoteOutcome& o) { on_outcome(self, o); },
      [=](lost_atom, const std::string& node) { relocate(self, node); },
  };
}

}  // namespace

caf::actor spawn_employee_proxy(caf::actor_system& sys, msg::AgentSpec spec, std::string node,
                                std::shared_ptr<ClusterPlacer> placer, uint64_t hire) {
  return sys.spawn(employee_proxy, std::move(spec), std::move(node), std::move(placer), hire);
}

}  // namespace kaisha::cluster
