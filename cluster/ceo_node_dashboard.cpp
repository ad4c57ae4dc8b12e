#include "cluster/ceo_node_dashboard.hpp"

#include "cluster/cluster_metrics.hpp"
#include "cluster/cluster_placer.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::cluster {

std::string CeoNodeDashboard::strategy() const { return company_.runtime().strategy(); }

json CeoNodeDashboard::budget() { return company_.runtime().budget(); }

bool CeoNodeDashboard::holds_task(const std::string& id) { return company_.holds_task(id); }

Result<std::string> CeoNodeDashboard::submit(const std::string& input) { return company_.submit(input); }

Status CeoNodeDashboard::cancel(const std::string& id) {
  return company_.cancel(id, "canceled from the dashboard of node " + company_.node().name());
}

Status CeoNodeDashboard::provide_input(const std::string& id, const std::string&) {
  return Error{"task", "task " + id + " asks for no input: a cluster's company does not ask its users"};
}

Status CeoNodeDashboard::raise_budget(const std::string& which, double amount) {
  return company_.runtime().raise_budget(which, amount);
}

json CeoNodeDashboard::cluster() {
  ClusterNode& node = company_.node();
  const json placed = company_.placer().agents();
  const json resources = company_.placer().resources();
  const int64_t now = steady_ms();
  json nodes = json::array();
  for (const auto& m : node.members()) {
    const std::string& name = m.info.name;
    const bool self = name == node.name();
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
                     {"agents", std::move(agents)}});
  }
  json dropped = json::object();
  for (const auto& [reason, count] : dropped_frames(node.counters())) dropped[reason] = count;
  return json{{"cluster", true}, {"node", node.name()}, {"nodes", std::move(nodes)}, {"dropped_frames", dropped}};
}

}  // namespace kaisha::cluster
