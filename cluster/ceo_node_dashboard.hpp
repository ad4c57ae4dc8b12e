// The company on a cluster's CEO node as the dashboard sees it
// (`kaisha node --http`): tasks from the page are queued with those of
// `kaisha submit` clients and run one at a time; a cancel is an operator's.
// Its company asks no user questions: an answer is refused saying so.
// Its cluster view is the CEO node's: its membership, its placer's agents
// and its gateway's counters.
#pragma once

#include "cluster/company_node.hpp"
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::cluster {

class CeoNodeDashboard : public dashboard::DashboardCompany {
 public:
  // `company` must outlive this.
  explicit CeoNodeDashboard(CompanyNode& company) : company_(company) {}

  std::string strategy() const override;
  // A cluster's company is one session with one budget: `session` is not asked.
  Result<json> budget(const std::string& session) override;
  bool holds_task(const std::string& id) override;
  Result<std::string> submit(const std::string& input) override;
  Status cancel(const std::string& id) override;
  Status provide_input(const std::string& id, const std::string& text) override;
  Status raise_budget(const std::string& session, const std::string& which, double amount) override;
  // Every member the CEO node knows, the agents placement put on each, the
  // frames each node's gateway dropped, and the nodes cluster.yaml lists
  // that never joined. The CEO node's counters are its own (those /metrics
  // reports); another node's are those it last answered a status request
  // with: each call asks every alive member again, without waiting for the
  // answer (null until a first one came).
  json cluster() override;

 private:
  // What the other nodes answered, shared with the answers still on their way.
  struct Probes {
    std::mutex mu;
    std::map<std::string, json> dropped;  // node -> {reason: count}
    std::set<std::string> asking;         // nodes with a status request on its way
  };
  void ask_dropped_frames(const std::string& node);

  CompanyNode& company_;
  std::shared_ptr<Probes> probes_ = std::make_shared<Probes>();
};

}  // namespace kaisha::cluster
