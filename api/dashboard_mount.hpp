// The dashboard on kaisha's HTTP servers: `kaisha serve --http` (and
// kaisha::Server) and a cluster's CEO node (`kaisha node --http`,
// kaisha::Node) mount it the same way, from the company config's journal and
// its redaction setting.
#pragma once

#include <string>

#include "protocols/http/http_server.hpp"
#include "runtime/config/config.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::api {

// Mounts the dashboard of `company` (session `session`, journaled in
// config.store_path) on `http` before it starts. An error, with nothing
// mounted, when the page's files are missing (a partial install): the
// server goes on without the page.
Status mount_company_dashboard(protocols::HttpServer& http, dashboard::DashboardCompany& company,
                               const config::Config& config, const std::string& session);

}  // namespace kaisha::api
