#include "cli/dashboard_wiring.hpp"

#include <iostream>

#include "protocols/dashboard/dashboard_endpoints.hpp"

namespace kaisha::cli {

void mount_dashboard_or_warn(protocols::HttpServer& http, dashboard::DashboardCompany& company,
                             const config::Config& config, const std::string& session, const std::string& command) {
  dashboard::DashboardOptions options;
  options.store_path = config.store_path;
  options.host_session = session;
  options.include_text = config.telemetry.traces.include_text;
  if (Status d = dashboard::mount_dashboard(http, company, options); !d.ok())
    std::cerr << command << ": no dashboard: " << d.error().message << std::endl;
}

}  // namespace kaisha::cli
