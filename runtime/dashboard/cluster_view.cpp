#include "runtime/dashboard/cluster_view.hpp"

#include <map>
#include <string>

namespace kaisha::dashboard {

void place_agents(json& agents, const json& cluster) {
  if (!cluster.value("cluster", false) || !agents.contains("agents")) return;
  std::map<std::string, std::string> placed;
  for (const auto& n : cluster.value("nodes", json::array()))
    for (const auto& a : n.value("agents", json::array())) placed[a.value("name", "")] = n.value("name", "");
  const std::string ceo_node = cluster.value("node", "");
  for (auto& a : agents["agents"]) {
    const std::string name = a.value("name", "");
    auto it = placed.find(name);
    if (it != placed.end()) {
      a["node"] = it->second;
      continue;
    }
    a["node"] = ceo_node;
    if (a.value("role", "") == "employee") a["placed"] = false;
  }
}

}  // namespace kaisha::dashboard
