// An A2A agent (the company, or a test fixture) served over A2A's JSON-RPC
// and HTTP+JSON bindings on a shared HttpServer:
//
//   GET  /.well-known/agent-card.json   the agent card (v1.0 fields plus the
//                                       v0.3 ones, one card for both eras),
//                                       listing both bindings (and gRPC
//                                       when grpc_target is set); for the
//                                       company, skills: the company itself
//                                       and each employee it has hired
//   GET  /.well-known/agent.json        the same card (v0.2 clients' path)
//   POST <path> (default /a2a)          JSON-RPC: A2aService's methods; the
//                                       streaming ones answer text/event-stream
//   <rest_path>/... (default /a2a/rest) HTTP+JSON (a2a_rest.hpp), A2A 1.0
//
// The A2A-Version header (or query parameter) is checked: missing means 0.3,
// an unsupported one gets -32009. Malformed bodies get JSON-RPC's errors.
// The server's bind policy, bearer token and body limit apply as for every
// protocol (protocols/http/http_server.hpp).
#pragma once

#include <memory>
#include <string>

#include "protocols/a2a/a2a_service.hpp"
#include "protocols/http/http_server.hpp"
#include "runtime/company/company_service.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::a2a {

struct A2aServerOptions {
  std::string path = "/a2a";            // the JSON-RPC endpoint
  std::string rest_path = "/a2a/rest";  // the HTTP+JSON binding's base; empty: not served
  // Where the gRPC binding is served ("HOST:PORT", protocols/a2a_grpc), for
  // the card to list; empty: not served, not listed. A wildcard host
  // (0.0.0.0, ::) is listed as the host the card's client reached.
  std::string grpc_target;
  std::string agent_name = "kaisha";
  std::string description = "A company of LLM agents: a CEO hires, asks and fires employees to answer your task.";
  std::string version = "0.1.0";
  // The card's v0.3 top-level fields; mount_a2a sets it per request, for
  // v0.3 clients only (see company_agent_card).
  bool v03_card_fields = false;
  A2aServiceOptions service;
};

// Mounts the routes above on `server` (before its start()). The returned
// service answers them; keep it (and `company`) alive while the server runs.
std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, company::CompanyService& company,
                                      A2aServerOptions options = {});
// The same for any agent.
std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, std::shared_ptr<A2aAgent> agent,
                                      A2aServerOptions options = {});
// The same for a service made beforehand (to share it with the gRPC
// binding); options.service is not used.
void mount_a2a(protocols::HttpServer& server, std::shared_ptr<A2aService> service, A2aServerOptions options);

// The agent card for a company whose JSON-RPC endpoint is `endpoint_url`:
// a "company" skill (send it a task) and one skill per hired employee from
// company.agents(). It lists the endpoint for A2A 1.0 and 0.3 and is valid
// against the 1.0 schema; with options.v03_card_fields it also has the v0.3
// top-level fields (served at /.well-known/agent.json, or when the request
// says A2A-Version 0.x). The card is served with Cache-Control (max-age 60),
// an ETag of its content and Last-Modified; If-None-Match gets 304.
json company_agent_card(company::CompanyService& company, const A2aServerOptions& options,
                        const std::string& endpoint_url);
// The card of any agent: its skills, the JSON-RPC endpoint for 1.0 and 0.3
// and, when `rest_url` is set, the HTTP+JSON interface (1.0) second; when
// `grpc_target` ("HOST:PORT") is set, the GRPC interface (1.0) after them.
json agent_card(A2aAgent& agent, const A2aServerOptions& options, const std::string& endpoint_url,
                const std::string& rest_url = "", const std::string& grpc_target = "");

}  // namespace kaisha::a2a
