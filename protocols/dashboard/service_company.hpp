// The company of `kaisha serve` as the dashboard sees it: a CompanyService
// (every action goes through it as a protocol's request does), in one
// process.
#pragma once

#include "runtime/company/company_service.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::dashboard {

class ServiceCompany : public DashboardCompany {
 public:
  // `service` must outlive this.
  explicit ServiceCompany(company::CompanyService& service) : service_(service) {}

  std::string strategy() const override { return service_.strategy(); }
  json budget() override { return service_.budget(); }
  bool holds_task(const std::string& id) override { return service_.task(id).has_value(); }
  Result<std::string> submit(const std::string& input) override { return service_.submit(input, {}); }
  Status cancel(const std::string& id) override { return service_.cancel(id); }
  Status provide_input(const std::string& id, const std::string& text) override {
    return service_.provide_input(id, text);
  }
  json cluster() override { return json{{"cluster", false}}; }

 private:
  company::CompanyService& service_;
};

}  // namespace kaisha::dashboard
