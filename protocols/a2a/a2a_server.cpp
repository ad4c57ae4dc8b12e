#include "protocols/a2a/a2a_server.hpp"

#include <optional>
#include <utility>
#include <variant>

#include "runtime/jsonrpc/company_capabilities.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::a2a {
namespace {

// The id of a body that is one request object, for an error that must be
// sent before the body is dispatched; null when there is none to echo.
json request_id_of(const std::string& body, const JsonLimits& limits) {
  json j = parse_json_or_discarded(body, limits);
  if (j.is_object()) {
    auto it = j.find("id");
    if (it != j.end() && (it->is_string() || it->is_number())) return *it;
  }
  return nullptr;
}

std::string endpoint_url(const protocols::HttpServer& server, const protocols::HttpRequest& req,
                         const std::string& path) {
  // The Host the peer used reaches us, whatever address we bound.
  const std::string host = req.header("host");
  return (host.empty() ? server.base_url() : "http://" + host) + path;
}

void handle_rpc(A2aService& service, const protocols::HttpServer& server, const protocols::HttpRequest& req,
                protocols::HttpResponse& res) {
  if (Status s = server.check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
  std::string version = req.header("a2a-version");
  if (version.empty()) {
    auto q = req.query.find("A2A-Version");
    if (q != req.query.end()) version = q->second;
  }
  if (auto v = parse_version_header(version); !v.ok())
    return res.set_json(200, jsonrpc::make_error(request_id_of(req.body, service.dispatcher().limits().body), code::kVersionNotSupported, v.error().message));

  const jsonrpc::Dispatcher& d = service.dispatcher();
  jsonrpc::ParsedBody parsed = jsonrpc::parse_body(req.body, d.limits());
  if (!parsed.batch && parsed.messages.size() == 1) {
    if (const auto* r = std::get_if<jsonrpc::Request>(&parsed.messages[0]);
        r && !r->notification && A2aService::is_streaming(r->method)) {
      auto writer = res.start_sse();
      service.stream(
          *r, [writer](const json& event) { return writer->send(event.dump(-1, ' ', false, json::error_handler_t::replace)); }, [writer] { writer->close(); });
      return;
    }
  }
  std::optional<json> response;
  bool answered = false;
  d.dispatch_body(req.body, jsonrpc::Context{}, [&](std::optional<json> r) {
    response = std::move(r);
    answered = true;
  });
  // Every A2A handler is synchronous, so the answer is here by now.
  if (!answered) return res.set_json(200, jsonrpc::make_error(nullptr, jsonrpc::code::kInternalError, "no answer"));
  if (!response) {
    res.status = 204;
    res.content_type.clear();
    return;
  }
  res.set_json(200, *response);
}

}  // namespace

json company_agent_card(company::CompanyService& company, const A2aServerOptions& options,
                        const std::string& endpoint) {
  const std::vector<jsonrpc::CapabilityDescriptor> skills = jsonrpc::company_capabilities(company.agents());
  jsonrpc::AgentCardInfo info;
  info.name = options.agent_name;
  info.description = options.description;
  info.url = endpoint;
  info.version = options.version;
  info.streaming = true;
  info.legacy_v03 = true;
  info.provider_organization = "kaisha";
  return jsonrpc::to_a2a_agent_card(info, skills);
}

std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, company::CompanyService& company,
                                      A2aServerOptions options) {
  auto service = std::make_shared<A2aService>(company, options.service);
  auto opts = std::make_shared<const A2aServerOptions>(std::move(options));
  protocols::HttpServer* srv = &server;
  auto card = [service, opts, srv](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    res.set_json(200, company_agent_card(service->company(), *opts, endpoint_url(*srv, req, opts->path)));
  };
  server.route("GET", "/\\.well-known/agent-card\\.json", card);
  server.route("GET", "/\\.well-known/agent\\.json", card);
  server.route("POST", opts->path, [service, srv](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    handle_rpc(*service, *srv, req, res);
  });
  return service;
}

}  // namespace kaisha::a2a
