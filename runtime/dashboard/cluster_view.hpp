// Which node each agent of the dashboard's org chart runs on, from the
// cluster view a DashboardCompany gives (dashboard_company.hpp).
#pragma once

#include "runtime/core/json.hpp"

namespace kaisha::dashboard {

// Sets "node" on each of `agents` ({"agents": [...]}, agents_json's answer):
// an agent the cluster's placement put on a node (hired, or lost with it)
// gets that node; every other agent is shown on the CEO node, where the
// company runs: the CEO, planner and judge, and an employee placement does
// not hold (fired, or hired by an earlier process), which also gets
// "placed": false. A company in one process ("cluster": false) leaves them
// all "".
void place_agents(json& agents, const json& cluster);

}  // namespace kaisha::dashboard
