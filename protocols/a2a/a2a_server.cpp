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

// A JSON-RPC body must say it is JSON, when it says anything: a form post or
// text/plain is refused with A2A's ContentTypeNotSupportedError (-32005)
// instead of failing later as a parse error. "application/json" and any
// "+json" type are accepted, parameters (charset) ignored.
Status check_content_type(const protocols::HttpRequest& req) {
  std::string type = req.header("content-type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.pop_back();
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.erase(0, 1);
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto ends_with = [&](std::string_view suffix) {
    return type.size() >= suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (type.empty() || type == "application/json" || ends_with("+json")) return Status::Ok();
  return Error{"content_type", "Content-Type " + type + " is not supported: send the JSON-RPC request as application/json"};
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
  if (auto v = parse_version_header(version); !v.ok()) {
    json e = jsonrpc::make_error(request_id_of(req.body, service.dispatcher().limits().body), code::kVersionNotSupported,
                                 v.error().message);
    add_error_info(e);
    return res.set_json(200, e);
  }

  if (Status s = check_content_type(req); !s.ok()) {
    json e = jsonrpc::make_error(nullptr, code::kContentTypeNotSupported, s.error().message);
    add_error_info(e);
    return res.set_json(200, e);
  }

  const jsonrpc::Dispatcher& d = service.dispatcher();
  jsonrpc::ParsedBody parsed = jsonrpc::parse_body(req.body, d.limits());
  if (!parsed.batch && parsed.messages.size() == 1) {
    if (const auto* r = std::get_if<jsonrpc::Request>(&parsed.messages[0]);
        r && !r->notification && A2aService::is_streaming(r->method)) {
      // The stream opens with its first event, which stream() delivers
      // before it returns (on this thread, while `res` is ours): when that
      // event is an error (an unknown task, a task that has ended, a bad
      // message) the answer is a plain JSON-RPC error, not a stream that
      // carries one, so a client sees the refusal as one.
      struct Opening {
        std::shared_ptr<protocols::SseWriter> writer;
        std::optional<json> refusal;
      };
      auto opening = std::make_shared<Opening>();
      auto stop = service.stream(
          *r,
          [opening, &res](const json& event) {
            json e = event;
            if (e.contains("error")) add_error_info(e);
            if (!opening->writer) {
              if (e.contains("error")) {
                opening->refusal = std::move(e);
                return false;
              }
              opening->writer = res.start_sse();
            }
            return opening->writer->send(e.dump(-1, ' ', false, json::error_handler_t::replace));
          },
          [opening] {
            if (opening->writer) opening->writer->close();
          });
      if (opening->refusal) {
        stop();
        return res.set_json(200, *opening->refusal);
      }
      // The client went away (or the stream ended): release the subscription now.
      if (opening->writer) opening->writer->on_close(std::move(stop));
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
  std::string version = req.header("a2a-version");
  if (auto q = req.query.find("A2A-Version"); version.empty() && q != req.query.end()) version = q->second;
  return version.rfind("0.", 0) == 0;
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
  info.v03_interface = true;
  info.v03_fields = options.v03_card_fields;
  info.provider_organization = "kaisha";
  return jsonrpc::to_a2a_agent_card(info, skills);
}

std::shared_ptr<A2aService> mount_a2a(protocols::HttpServer& server, company::CompanyService& company,
                                      A2aServerOptions options) {
  auto service = std::make_shared<A2aService>(company, options.service);
  auto opts = std::make_shared<const A2aServerOptions>(std::move(options));
  protocols::HttpServer* srv = &server;
  auto validators = std::make_shared<CardValidators>();
  auto card = [service, opts, srv, validators](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    A2aServerOptions for_client = *opts;
    const bool v03 = wants_v03_card(req);
    for_client.v03_card_fields = v03;
    res.set_json(200, company_agent_card(service->company(), for_client, endpoint_url(*srv, req, opts->path)));
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
  server.route("POST", opts->path + "/?", [service, srv](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    handle_rpc(*service, *srv, req, res);
  });
  return service;
}

}  // namespace kaisha::a2a
