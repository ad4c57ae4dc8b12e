// The company of `kaisha serve` as the dashboard sees it: a CompanyService
// (every action goes through it as a protocol's request does), in one
// process. A session's budget and its raise go to `budgets` (the company's
// sessions); without them the service's budget is shown and a raise is
// refused saying so.
#pragma once

#include <functional>

#include "runtime/company/company_service.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::dashboard {

// How the budgets of the service's sessions are read and raised.
struct ServiceBudgets {
  bool per_session = false;  // each session has its own
  std::function<Result<json>(const std::string& session)> budget;
  std::function<Status(const std::string& session, const std::string& which, double amount)> raise;
};

class ServiceCompany : public DashboardCompany {
 public:
  // `service` must outlive this.
  explicit ServiceCompany(company::CompanyService& service, ServiceBudgets budgets = {})
      : service_(service), budgets_(std::move(budgets)) {}

  std::string strategy() const override { return service_.strategy(); }
  Result<json> budget(const std::string& session) override {
    if (!budgets_.budget) return service_.budget();
    return budgets_.budget(session);
  }
  bool per_session_budget() const override { return budgets_.per_session; }
  bool holds_task(const std::string& id) override { return service_.task(id).has_value(); }
  Result<std::string> submit(const std::string& input) override { return service_.submit(input, {}); }
  Status cancel(const std::string& id) override { return service_.cancel(id); }
  Status provide_input(const std::string& id, const std::string& text) override {
    return service_.provide_input(id, text);
  }
  Status raise_budget(const std::string& session, const std::string& which, double amount) override {
    if (!budgets_.raise) return Error{"unsupported", "this company's budget cannot be raised from the dashboard"};
    return budgets_.raise(session, which, amount);
  }
  json cluster() override { return json{{"cluster", false}}; }

 private:
  company::CompanyService& service_;
  ServiceBudgets budgets_;
};

}  // namespace kaisha::dashboard
