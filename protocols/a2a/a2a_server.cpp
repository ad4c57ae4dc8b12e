#include "protocols/a2a/a2a_server.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <memory>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <variant>

#include "protocols/a2a/a2a_error_info.hpp"
#include "protocols/a2a/a2a_http_request.hpp"
#include "protocols/a2a/a2a_rest.hpp"
#include "protocols/a2a/company_agent.hpp"

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

void handle_rpc(A2aService& service, const protocols::HttpServer& server, const protocols::HttpRequest& req,
                protocols::HttpResponse& res) {
  if (Status s = server.check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
  if (auto v = parse_version_header(requested_version(req)); !v.ok()) {
    json e = jsonrpc::make_error(request_id_of(req.body, service.dispatcher().limits().body),
                                 code::kVersionNotSupported, v.error().message);
    add_error_info(e);
    return res.set_json(200, e);
  }

  if (Status s = check_json_content_type(req); !s.ok()) {
    json e = jsonrpc::make_error(nullptr, code::kContentTypeNotSupported, s.error().message);
    add_error_info(e);
    return res.set_json(200, e);
  }

  const jsonrpc::Dispatcher& d = service.dispatcher();
  jsonrpc::ParsedBody parsed = jsonrpc::parse_body(req.body, d.limits());
  if (!parsed.batch && parsed.messages.size() == 1) {
    if (const auto* r = std::get_if<jsonrpc::Request>(&parsed.messages[0]);
        r && !r->notification && A2aService::is_streaming(r->method)) {
      auto refusal = serve_stream(service, *r, res, [](const json& event) {
        json e = event;
        if (e.contains("error")) add_error_info(e);
        return e;
      });
      if (refusal) {
        add_error_info(*refusal);
        res.set_json(200, *refusal);
      }
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
  add_error_info(*response);
  res.set_json(200, *response);
}

// A v0.3 client gets the v0.3 top-level card fields; a v1.0 client (and one
// that says nothing) a card that is valid against the v1.0 schema. v0.3 is
// asked for by the pre-1.0 path /.well-known/agent.json or A2A-Version 0.x.
bool wants_v03_card(const protocols::HttpRequest& req) {
  if (req.path.find("/agent.json") != std::string::npos) return true;
  return requested_version(req).rfind("0.", 0) == 0;
}

std::string http_date(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

// Cache validators of the card (A2A 1.0 section 8.6): the ETag is a hash of
// the card's content, Last-Modified the time that content was first served.
// The card changes when the company hires or fires, so it is kept short-lived.
class CardValidators {
 public:
  struct Tags {
    std::string etag, last_modified;
  };
  Tags for_body(const std::string& body, bool v03) {
    const std::string etag = "\"" + std::to_string(std::hash<std::string>{}(body)) + (v03 ? "-v03" : "") + "\"";
    std::lock_guard lock(mu_);
    Tags& t = v03 ? v03_ : v10_;
    if (t.etag != etag) t = Tags{etag, http_date(std::time(nullptr))};
    return t;
  }

 private:
  std::mutex mu_;
  Tags v10_, v03_;
};

constexpr int kCardMaxAgeSeconds = 60;

// The gRPC target as the card's client can dial it: a wildcard host
// (0.0.0.0, [::]) becomes the host it reached `endpoint` (an http(s) URL) by.
std::string grpc_target_for(const std::string& target, const std::string& endpoint) {
  const size_t colon = target.rfind(':');
  if (colon == std::string::npos) return target;
  const std::string host = target.substr(0, colon);
  if (host != "0.0.0.0" && host != "[::]" && host != "::" && !host.empty()) return target;
  const size_t start = endpoint.find("://");
  if (start == std::string::npos) return target;
  const std::string authority = endpoint.substr(start + 3, endpoint.find('/', start + 3) - start - 3);
  const size_t close = authority.rfind(']');
  const size_t port_colon = authority.rfind(':');
  const std::string reached = port_colon != std::string::npos && (close == std::string::npos || port_colon > close)
                                  ? authority.substr(0, port_colon)
                                  : authority;
  return reached + target.substr(colon);
}

}  // namespace

json company_agent_card(company::CompanyService& company, const A2aServerOptions& options,
                        const std::string& endpoint) {
  CompanyAgent agent(company);
  return agent_card(agent, options, endpoint);
}

json agent_card(A2aAgent& agent, const A2aServerOptions& options, const std::string& endpoint,
                const std::string& rest_url, const std::string& grpc_target) {
  const std::vector<jsonrpc::CapabilityDescriptor> skills = agent.skills();
  jsonrpc::AgentCardInfo info;
  info.name = options.agent_name;
  info.description = options.description;
  info.url = endpoint;
  info.version = options.version;
  info.streaming = true;
  info.v03_interface = true;
  info.v03_fields = options.v03_card_fields;
  info.provider_organization = "kaisha";
  json card = jsonrpc::to_a2a_agent_card(info, skills);
  if (!rest_url.empty()) {
    // The HTTP+JSON binding (1.0 only) right after JSON-RPC 1.0: a client
    // takes the first interface of the binding it speaks.
    json& interfaces = card["supportedInterfaces"];
    interfaces.insert(
        interfaces.begin() + 1,
        json{{"url", rest_url}, {"protocolBinding", "HTTP+JSON"}, {"protocolVersion", "1.0"}, {"tenant", ""}});
  }
  if (!grpc_target.empty()) {
    // After the 1.0 HTTP bindings, before the 0.3 JSON-RPC entry (gRPC's
    // client dials HOST:PORT, no scheme).
    json& interfaces = card["supportedInterfaces"];
    interfaces.insert(
        interfaces.begin() + (rest_url.empty() ? 1 : 2),
        json{{"url", grpc_target}, {"protocolBinding", "GRPC"}, {"protocolVersion", "1.0"}, {"tenant", ""}});
  }
  return card;
}

std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, company::CompanyService& company,
                                      A2aServerOptions options) {
  return mount_a2a(server, std::make_shared<CompanyAgent>(company), std::move(options));
}

std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, std::shared_ptr<A2aAgent> agent,
                                      A2aServerOptions options) {
  auto service = std::make_shared<A2aService>(std::move(agent), options.service);
  mount_a2a(server, service, std::move(options));
  return service;
}

void mount_a2a(protocols::HttpServer& server, std::shared_ptr<A2aService> service, A2aServerOptions options) {
  auto opts = std::make_shared<const A2aServerOptions>(std::move(options));
  protocols::HttpServer* srv = &server;
  auto validators = std::make_shared<CardValidators>();
  auto card = [service, opts, srv, validators](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    A2aServerOptions for_client = *opts;
    const bool v03 = wants_v03_card(req);
    for_client.v03_card_fields = v03;
    const std::string rest = opts->rest_path.empty() ? "" : endpoint_url(*srv, req, opts->rest_path);
    const std::string endpoint = endpoint_url(*srv, req, opts->path);
    res.set_json(
        200, agent_card(service->agent(), for_client, endpoint, rest, grpc_target_for(opts->grpc_target, endpoint)));
    const CardValidators::Tags tags = validators->for_body(res.body, v03);
    res.headers["Cache-Control"] = "public, max-age=" + std::to_string(kCardMaxAgeSeconds);
    res.headers["ETag"] = tags.etag;
    res.headers["Last-Modified"] = tags.last_modified;
    const std::string if_none_match = req.header("if-none-match");
    if (!if_none_match.empty() && (if_none_match == tags.etag || if_none_match == "*")) {
      res.status = 304;
      res.body.clear();
      res.content_type.clear();
    }
  };
  server.route("GET", "/\\.well-known/agent-card\\.json", card);
  server.route("GET", "/\\.well-known/agent\\.json", card);
  // "/a2a" and "/a2a/" are one endpoint (clients join base URL and path both ways).
  server.route("POST", opts->path + "/?",
               [service, srv](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
                 handle_rpc(*service, *srv, req, res);
               });
  if (!opts->rest_path.empty()) mount_a2a_rest(server, service, opts->rest_path);
}

}  // namespace kaisha::a2a
