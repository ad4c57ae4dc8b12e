// place_agents: the org chart's agents on the nodes the cluster placed them.
#include "runtime/dashboard/cluster_view.hpp"

#include <gtest/gtest.h>

namespace kaisha::dashboard {
namespace {

json org() {
  return json{{"session", "s"},
              {"agents",
               {{{"name", "CEO"}, {"role", "ceo"}, {"node", ""}},
                {{"name", "planner"}, {"role", "planner"}, {"node", ""}},
                {{"name", "Ito"}, {"role", "employee"}, {"node", ""}},
                {{"name", "Gone"}, {"role", "employee"}, {"node", ""}}}}};
}

std::string node_of(const json& agents, const std::string& name) {
  for (const auto& a : agents["agents"])
    if (a["name"] == name) return a["node"];
  return "<missing>";
}

TEST(PlaceAgents, OnOneProcessEveryAgentKeepsNoNode) {
  json agents = org();
  place_agents(agents, json{{"cluster", false}});
  EXPECT_EQ(agents, org());
}

TEST(PlaceAgents, PlacedAgentsGetTheirNodeAndTheRestTheCeoNode) {
  json agents = org();
  json cluster = {{"cluster", true},
                  {"node", "ceo"},
                  {"nodes",
                   {{{"name", "ceo"}, {"agents", json::array()}},
                    {{"name", "w1"}, {"agents", {{{"name", "Ito"}, {"state", "lost"}}}}}}}};
  place_agents(agents, cluster);
  EXPECT_EQ(node_of(agents, "CEO"), "ceo");
  EXPECT_EQ(node_of(agents, "planner"), "ceo");
  EXPECT_EQ(node_of(agents, "Ito"), "w1");
  // Fired: placement no longer knows where it ran; shown with the company, on the CEO node.
  EXPECT_EQ(node_of(agents, "Gone"), "ceo");
  for (const auto& a : agents["agents"]) EXPECT_EQ(a.value("placed", true), a["name"] != "Gone") << a.dump();
}

}  // namespace
}  // namespace kaisha::dashboard
