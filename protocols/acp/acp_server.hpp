// The company served over ACP (REST, OpenAPI 0.2.0) on a shared HttpServer:
//
//   GET  /ping                   {}
//   GET  /agents[?limit&offset]  {"agents": [AgentManifest]}
//   GET  /agents/{name}          AgentManifest, 404 not_found
//   POST /runs                   mode sync → 200 Run when finished; async → 202
//                                Run; stream → text/event-stream of events
//   GET  /runs/{id}              Run
//   POST /runs/{id}              resume (kaisha's runs never await: 403)
//   POST /runs/{id}/cancel       202 Run (cancelling), 403 when ended
//   GET  /runs/{id}/events       {"events": [Event]}
//
// Errors are ACP's body {"code", "message"} with 400/403/404. `prefix` puts
// the routes under a path (default: at the root, as ACP clients expect).
#pragma once

#include <memory>
#include <string>

#include "protocols/acp/acp_service.hpp"
#include "protocols/http/http_server.hpp"

namespace kaisha::acp {

struct AcpServerOptions {
  std::string prefix;  // e.g. "/acp"; "" = root
  AcpServiceOptions service;
};

// Mounts the routes on `server` (before its start()); keep the returned
// service (and `company`) alive while the server runs.
std::shared_ptr<AcpService> mount_acp(protocols::HttpServer& server, company::CompanyService& company,
                                      AcpServerOptions options = {});

}  // namespace kaisha::acp
