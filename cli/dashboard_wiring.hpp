// The dashboard on the CLI's HTTP servers: `kaisha serve --http` and
// `kaisha node --http` on a cluster's CEO node mount it the same way, from
// the company config's journal and its redaction setting.
#pragma once

#include <string>

#include "protocols/http/http_server.hpp"
#include "runtime/config/config.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::cli {

// Mounts the dashboard of `company` (session `session`, journaled in
// config.store_path) on `http` before it starts. When the page's files are
// missing (a partial install) it says so on stderr, prefixed with `command`,
// and the server goes on without the page.
void mount_dashboard_or_warn(protocols::HttpServer& http, dashboard::DashboardCompany& company,
                             const config::Config& config, const std::string& session, const std::string& command);

}  // namespace kaisha::cli
