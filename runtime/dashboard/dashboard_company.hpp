// DashboardCompany: what the dashboard (protocols/dashboard) reads from the
// company it shows and does to it, whichever process runs that company:
// `kaisha serve` (a CompanyService, protocols/dashboard/service_company.hpp)
// or a cluster's CEO node (cluster/ceo_node_dashboard.hpp). Every method is
// called from the HTTP server's threads and must be thread-safe; none may
// wait on a task.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::dashboard {

class DashboardCompany {
 public:
  virtual ~DashboardCompany() = default;

  // The strategy its tasks run with ("" when it does not say).
  virtual std::string strategy() const = 0;
  // GetBudget's view now of the budget session `session` charges ("": the
  // served session's). An Error "not_found" when it has no such session open.
  virtual Result<json> budget(const std::string& session) = 0;
  // Whether each session has a budget of its own (`serve.session_budget:
  // per_session`); otherwise every session charges one.
  virtual bool per_session_budget() const { return false; }
  // Whether it holds task `id` now (waiting, running or just ended),
  // journaled or not.
  virtual bool holds_task(const std::string& id) = 0;

  // Queues a task and returns its id at once. An error's code "limit" or
  // "busy" says a limit on waiting tasks refused it.
  virtual Result<std::string> submit(const std::string& input) = 0;
  // Cancels a waiting or running task; an error when it holds no such task
  // or it has ended.
  virtual Status cancel(const std::string& id) = 0;
  // Answers the question task `id` asks its user.
  virtual Status provide_input(const std::string& id, const std::string& text) = 0;
  // An operator's raise of the "expense" (USD) or "resource" budget that
  // session `session` charges ("": the served session's) by `amount` > 0,
  // through the ledger as `kaisha budget --raise-*` does (a journaled ledger
  // entry of kind "raise"), committed before it returns.
  virtual Status raise_budget(const std::string& session, const std::string& which, double amount) = 0;

  // The nodes it runs on: {"cluster": false} for one process; on a cluster
  // {"cluster": true, "node": the CEO node's name, "nodes": [{name, state,
  // ceo, self, heartbeat_age_ms (null for itself or a node never heard
  // from), resource_units, resources_used, agents: [{name, model, state}]}],
  // "dropped_frames": {reason: count}} (those of the CEO node's gateway).
  virtual json cluster() = 0;
};

}  // namespace kaisha::dashboard
