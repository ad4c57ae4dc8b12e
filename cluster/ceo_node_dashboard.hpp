// The company on a cluster's CEO node as the dashboard sees it
// (`kaisha node --http`): tasks from the page are queued with those of
// `kaisha submit` clients and run one at a time; a cancel is an operator's.
// Its company asks no user questions: an answer is refused saying so.
// Its cluster view is the CEO node's: its membership, its placer's agents
// and its gateway's counters.
#pragma once

#include "cluster/company_node.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::cluster {

class CeoNodeDashboard : public dashboard::DashboardCompany {
 public:
  // `company` must outlive this.
  explicit CeoNodeDashboard(CompanyNode& company) : company_(company) {}

  std::string strategy() const override;
  json budget() override;
  bool holds_task(const std::string& id) override;
  Result<std::string> submit(const std::string& input) override;
  Status cancel(const std::string& id) override;
  Status provide_input(const std::string& id, const std::string& text) override;
  Status raise_budget(const std::string& which, double amount) override;
  // Every member the CEO node knows, the agents placement put on each, and
  // the frames its gateway dropped (the counters /metrics reports).
  json cluster() override;

 private:
  CompanyNode& company_;
};

}  // namespace kaisha::cluster
