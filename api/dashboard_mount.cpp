#include "api/dashboard_mount.hpp"

#include "protocols/dashboard/dashboard_endpoints.hpp"

namespace kaisha::api {

Status mount_company_dashboard(protocols::HttpServer& http, dashboard::DashboardCompany& company,
                               const config::Config& config, const std::string& session) {
  dashboard::DashboardOptions options;
  options.store_path = config.store_path;
  options.host_session = session;
  options.include_text = config.telemetry.traces.include_text;
  return dashboard::mount_dashboard(http, company, options);
}

}  // namespace kaisha::api
