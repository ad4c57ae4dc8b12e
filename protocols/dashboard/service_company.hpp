// The company of `kaisha serve` as the dashboard sees it: a CompanyService
// (every action goes through it as a protocol's request does), in one
// process. A budget raise goes to `raise` (the company runtime's ledger);
// without it a raise is refused saying so.
#pragma once

#include <functional>

#include "runtime/company/company_service.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::dashboard {

class ServiceCompany : public DashboardCompany {
 public:
  using Raise = std::function<Status(const std::string& which, double amount)>;
  // `service` must outlive this.
  explicit ServiceCompany(company::CompanyService& service, Raise raise = {})
      : service_(service), raise_(std::move(raise)) {}

  std::string strategy() const override { return service_.strategy(); }
  json budget() override { return service_.budget(); }
  bool holds_task(const std::string& id) override { return service_.task(id).has_value(); }
  Result<std::string> submit(const std::string& input) override { return service_.submit(input, {}); }
  Status cancel(const std::string& id) override { return service_.cancel(id); }
  Status provide_input(const std::string& id, const std::string& text) override {
    return service_.provide_input(id, text);
  }
  Status raise_budget(const std::string& which, double amount) override {
    if (!raise_) return Error{"unsupported", "this company's budget cannot be raised from the dashboard"};
    return raise_(which, amount);
  }
  json cluster() override { return json{{"cluster", false}}; }

 private:
  company::CompanyService& service_;
  Raise raise_;
};

}  // namespace kaisha::dashboard
