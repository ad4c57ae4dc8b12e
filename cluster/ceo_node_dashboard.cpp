#include "cluster/ceo_node_dashboard.hpp"

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

}  // namespace kaisha::cluster
