#include "protocols/acp/acp_server.hpp"

#include <utility>

namespace kaisha::acp {
namespace {

void reply(protocols::HttpResponse& res, AcpReply r) {
  res.set_json(r.status, r.body);
  for (auto& [k, v] : r.headers) res.headers[k] = v;
}

int int_query(const protocols::HttpRequest& req, const char* key, int fallback) {
  auto it = req.query.find(key);
  if (it == req.query.end()) return fallback;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return fallback;
  }
}

}  // namespace

std::shared_ptr<AcpService> mount_acp(protocols::HttpServer& server, company::CompanyService& company,
                                      AcpServerOptions options) {
  auto service = std::make_shared<AcpService>(company, options.service);
  const std::string p = options.prefix;
  protocols::HttpServer* srv = &server;
  // Every route refuses a foreign Origin/Host first (DNS rebinding).
  auto guarded = [srv](auto body) {
    return [srv, body](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
      if (Status s = srv->check_origin(req); !s.ok())
        return reply(res, AcpReply{403, error_body("invalid_input", s.error().message), {}});
      body(req, res);
    };
  };
  server.route("GET", p + "/ping", guarded([service](const auto&, auto& res) { reply(res, service->ping()); }));
  server.route("GET", p + "/agents", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->agents(int_query(req, "limit", 10), int_query(req, "offset", 0)));
               }));
  server.route("GET", p + "/agents/([^/]+)", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->agent(req.path_params.at(0)));
               }));
  server.route("POST", p + "/runs", guarded([service](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
                 AcpReply error;
                 auto r = service->parse_run_request(req.body, &error);
                 if (!r.ok()) return reply(res, std::move(error));
                 if (r->mode != "stream") return reply(res, service->start_run(*r));
                 auto writer = res.start_sse();
                 auto stream = service->stream_run(
                     *r,
                     [writer](const json& event) {
                       return writer->send(event.dump(-1, ' ', false, json::error_handler_t::replace));
                     },
                     [writer] { writer->close(); });
                 // The client went away (or the stream ended): the run lets go of it now.
                 writer->on_close(std::move(stream.stop));
                 res.headers["Run-ID"] = stream.run_id;
               }));
  server.route("GET", p + "/runs/([^/]+)", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->get_run(req.path_params.at(0)));
               }));
  server.route("POST", p + "/runs/([^/]+)", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->resume_run(req.path_params.at(0), req.body));
               }));
  server.route("POST", p + "/runs/([^/]+)/cancel", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->cancel_run(req.path_params.at(0)));
               }));
  server.route("GET", p + "/runs/([^/]+)/events", guarded([service](const protocols::HttpRequest& req, auto& res) {
                 reply(res, service->run_events(req.path_params.at(0)));
               }));
  return service;
}

}  // namespace kaisha::acp
