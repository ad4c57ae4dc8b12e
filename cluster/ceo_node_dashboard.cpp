#include "cluster/ceo_node_dashboard.hpp"

#include "cluster/cluster_metrics.hpp"
#include "cluster/cluster_placer.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::cluster {

std::string CeoNodeDashboard::strategy() const { return company_.runtime().strategy(); }

Result<json> CeoNodeDashboard::budget(const std::string&) { return company_.runtime().budget(); }

bool CeoNodeDashboard::holds_task(const std::string& id) { return company_.holds_task(id); }

Result<std::string> CeoNodeDashboard::submit(const std::string& input) { return company_.submit(input); }

Status CeoNodeDashboard::cancel(const std::string& id) {
  return company_.cancel(id, "canceled from the dashboard of node " + company_.node().name());
}

Status CeoNodeDashboard::provide_input(const std::string& id, const std::string&) {
  return Error{"task", "task " + id + " asks for no input: a cluster's company does not ask its users"};
}

Status CeoNodeDashboard::raise_budget(const std::string&, const std::string& which, double amount) {
  return company_.runtime().raise_budget(which, amount);
}

namespace {

constexpr int64_t kStatusTimeoutMs = 5000;

json dropped_json(const std::vector<std::pair<std::string, uint64_t>>& counts) {
  json out = json::object();
  for (const auto& [reason, count] : counts) out[reason] = count;
  return out;
}

// The dropped frames of a node's status() answer, by the reasons dropped_frames() names.
json dropped_in_status(const json& status) {
  const json gateway = status.is_object() ? status.value("gateway", json::object()) : json::object();
  json out = json::object();
  for (const auto& [reason, count] : dropped_frames(transport::GatewayCounters{})) {
    (void)count;
    const json& v =
        gateway.is_object() && gateway.contains("dropped_" + reason) ? gateway["dropped_" + reason] : json();
    out[reason] = v.is_number_unsigned() ? v.get<uint64_t>() : 0;
  }
  return out;
}

}  // namespace

void CeoNodeDashboard::ask_dropped_frames(const std::string& name) {
  {
    std::lock_guard<std::mutex> g(probes_->mu);
    if (!probes_->asking.insert(name).second) return;  // one request on its way per node
  }
  company_.node().ask_status(name, kStatusTimeoutMs, [probes = probes_, name](Result<json> status) {
    std::lock_guard<std::mutex> g(probes->mu);
    probes->asking.erase(name);
    if (status.ok()) probes->dropped[name] = dropped_in_status(*status);
  });
}

json CeoNodeDashboard::cluster() {
  ClusterNode& node = company_.node();
  const json placed = company_.placer().agents();
  const json resources = company_.placer().resources();
  const int64_t now = steady_ms();
  json nodes = json::array();
  std::set<std::string> joined;
  for (const auto& m : node.members()) {
    const std::string& name = m.info.name;
    const bool self = name == node.name();
    joined.insert(name);
    json dropped;  // null: not known yet
    if (self) {
      dropped = dropped_json(dropped_frames(node.counters()));
    } else {
      if (m.state == MemberState::alive) ask_dropped_frames(name);
      std::lock_guard<std::mutex> g(probes_->mu);
      if (auto it = probes_->dropped.find(name); it != probes_->dropped.end()) dropped = it->second;
    }
    json agents = json::array();
    for (const auto& a : placed)
      if (a.value("node", "") == name)
        agents.push_back(
            {{"name", a.value("name", "")}, {"model", a.value("model", "")}, {"state", a.value("state", "")}});
    json used = resources.contains(name) ? resources[name].value("used", json(0)) : json(0);
    nodes.push_back({{"name", name},
                     {"state", to_string(m.state)},
                     {"ceo", m.info.capabilities.ceo},
                     {"self", self},
                     {"heartbeat_age_ms", self || m.last_heard_ms == 0 ? json(nullptr) : json(now - m.last_heard_ms)},
                     {"resource_units", m.info.capabilities.resource_units},
                     {"resources_used", used},
                     {"dropped_frames", std::move(dropped)},
                     {"agents", std::move(agents)}});
  }
  // Listed in cluster.yaml, never heard from.
  for (const auto& listed : node.admission()->config().nodes) {
    if (joined.count(listed.name)) continue;
    nodes.push_back({{"name", listed.name},
                     {"state", "never joined"},
                     {"ceo", listed.capabilities.ceo},
                     {"self", false},
                     {"heartbeat_age_ms", nullptr},
                     {"resource_units", listed.capabilities.resource_units},
                     {"resources_used", 0},
                     {"dropped_frames", nullptr},
                     {"agents", json::array()}});
  }
  return json{{"cluster", true},
              {"node", node.name()},
              {"nodes", std::move(nodes)},
              {"dropped_frames", dropped_json(dropped_frames(node.counters()))}};
}

}  // namespace kaisha::cluster
