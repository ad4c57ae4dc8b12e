#include "cluster/cluster_placer.hpp"

#include <cstdio>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "cluster/cluster_atoms.hpp"
#include "cluster/employee_proxy.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cluster {

std::shared_ptr<ClusterPlacer> ClusterPlacer::create(ClusterNode& node, PlacerOptions options) {
  std::shared_ptr<ClusterPlacer> p(new ClusterPlacer(node, std::move(options)));
  std::weak_ptr<ClusterPlacer> weak = p;
  node.add_listener([weak](const MembershipEvent& e) {
    if (auto self = weak.lock()) self->on_membership(e);
  });
  return p;
}

PlacementRequest ClusterPlacer::request_for(const msg::AgentSpec& spec) const {
  PlacementRequest r;
  r.agent = spec.name;
  r.model = spec.base_model;
  r.model_ref = spec.model_ref;
  if (spec.costs.is_object()) {
    r.units = spec.costs.value("create_resource_cost", 0.0);
    // The model's tags from the cost table (economy::spec_costs_json).
    if (auto t = spec.costs.find("tags"); t != spec.costs.end() && t->is_array())
      for (const auto& tag : *t)
        if (tag.is_string()) r.tags.push_back(tag.get<std::string>());
  }
  return r;
}

Result<std::string> ClusterPlacer::choose(const PlacementRequest& r) {
  std::vector<PlacementCandidate> candidates;
  for (const auto& m : node_.members()) {
    resources_.set_capacity(m.info.name, m.info.capabilities.resource_units);
    PlacementCandidate c;
    c.node = m.info.name;
    c.capabilities = m.info.capabilities;
    c.free_units = resources_.free(m.info.name);
    c.alive = m.state == MemberState::alive;
    candidates.push_back(std::move(c));
  }
  return cluster::place(r, candidates);  // the free function, not the member
}

Status ClusterPlacer::check(const msg::AgentSpec& spec) {
  std::lock_guard<std::mutex> g(mu_);
  auto n = choose(request_for(spec));
  if (!n.ok()) return n.error();
  return Status::Ok();
}

Result<caf::actor> ClusterPlacer::place(caf::actor_system& sys, const msg::AgentSpec& spec,
                                        const actors::EmployeeDeps& local) {
  std::string where;
  uint64_t hire = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    PlacementRequest r = request_for(spec);
    // A hire of a name the CEO already fired, whose employee has not
    // finished stopping: its units are given back now (its late release
    // names its own hire and changes nothing).
    if (agents_.count(spec.name)) resources_.release(spec.name);
    auto n = choose(r);
    if (!n.ok()) return n.error();
    if (Status s = resources_.reserve(*n, spec.name, r.units); !s.ok()) return s.error();
    where = *n;
    hire = ++hires_;
    agents_[spec.name] = Entry{spec, where, r.units, "hired", caf::actor_addr(), hire};
    if (local.journal) journal_ = local.journal.address();
  }
  emit(msg::EventKind::placed, spec.name, where, spec.name + " placed on node " + where,
       json{{"agent", spec.name}, {"node", where}});
  if (where == node_.name()) {
    caf::actor employee = actors::spawn_employee(sys, spec, local);
    // Fired or stopped, it gives its units back (a proxy does this for a
    // one on another node). A later hire of the same name keeps its own.
    std::weak_ptr<ClusterPlacer> weak = shared_from_this();
    employee->attach_functor([weak, name = spec.name, hire] {
      if (auto self = weak.lock()) self->release(name, hire);
    });
    return employee;
  }
  caf::actor proxy = spawn_employee_proxy(sys, spec, where, shared_from_this(), hire);
  std::lock_guard<std::mutex> g(mu_);
  agents_[spec.name].proxy = proxy.address();
  return proxy;
}

Result<std::string> ClusterPlacer::relocate(const msg::AgentSpec& spec, const std::string& lost_on) {
  std::lock_guard<std::mutex> g(mu_);
  resources_.release(spec.name);
  PlacementRequest r = request_for(spec);
  r.exclude = {lost_on};
  auto n = choose(r);
  if (!n.ok()) return n.error();
  if (Status s = resources_.reserve(*n, spec.name, r.units); !s.ok()) return s.error();
  auto& e = agents_[spec.name];
  e.node = *n;
  e.state = "hired";
  if (auto j = caf::actor_cast<caf::actor>(journal_); j && !session_id_.empty())
    actors::journal_agent_hired(j, session_id_, spec);
  return *n;
}

void ClusterPlacer::release(const std::string& agent, uint64_t hire) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = agents_.find(agent);
  if (it == agents_.end() || it->second.hire != hire) return;
  resources_.release(agent);
  agents_.erase(it);
}

void ClusterPlacer::journal_to(std::string session_id) {
  std::lock_guard<std::mutex> g(mu_);
  session_id_ = std::move(session_id);
}

void ClusterPlacer::on_membership(const MembershipEvent& e) {
  using K = MembershipEvent::Kind;
  if (e.kind != K::down && e.kind != K::restarted && e.kind != K::removed) return;
  std::vector<std::pair<std::string, caf::actor_addr>> lost;
  {
    std::lock_guard<std::mutex> g(mu_);
    resources_.release_node(e.node);
    for (auto& [name, entry] : agents_) {
      if (entry.node != e.node || entry.state == "lost") continue;
      entry.state = "lost";
      lost.emplace_back(name, entry.proxy);
      if (auto j = caf::actor_cast<caf::actor>(journal_); j && !session_id_.empty())
        actors::journal_op(j, actors::JournalOp([session = session_id_, name = name](store::JournalStore& s) {
                             if (Status st = s.mark_agent_lost(session, name); !st.ok())
                               std::fprintf(stderr, "journal: %s\n", st.error().message.c_str());
                           }));
    }
  }
  for (auto& [name, addr] : lost) {
    const std::string why = e.kind == K::removed ? " was removed from the cluster" : " is down";
    emit(msg::EventKind::node_down, name, e.node, "node " + e.node + why + ": agent " + name + " lost",
         json{{"agent", name}, {"node", e.node}, {"removed", e.kind == K::removed}});
    if (auto proxy = caf::actor_cast<caf::actor>(addr)) caf::anon_send(proxy, lost_atom::value, e.node);
  }
}

json ClusterPlacer::agents() const {
  std::lock_guard<std::mutex> g(mu_);
  json out = json::array();
  for (const auto& [name, e] : agents_)
    out.push_back(
        {{"name", name}, {"node", e.node}, {"model", e.spec.base_model}, {"units", e.units}, {"state", e.state}});
  return out;
}

json ClusterPlacer::resources() const {
  std::lock_guard<std::mutex> g(mu_);
  json out = json::object();
  for (const auto& m : node_.members())
    out[m.info.name] = {{"capacity", m.info.capabilities.resource_units},
                        {"used", resources_.used(m.info.name)},
                        {"agents", resources_.agents_on(m.info.name)}};
  return out;
}

void ClusterPlacer::emit(msg::EventKind kind, const std::string& agent, const std::string& node,
                         const std::string& text, json data) {
  if (!options_.progress || !options_.progress->listening()) return;
  msg::ProgressEvent ev;
  ev.agent = agent;
  ev.node = node;
  ev.kind = kind;
  ev.text = text;
  ev.data = std::move(data);
  ev.at_ms = wall_ms();
  options_.progress->emit(ev);
}

}  // namespace kaisha::cluster
