#include "protocols/telemetry/metrics_endpoint.hpp"

namespace kaisha::telemetry_http {

void mount_metrics(protocols::HttpServer& server, const telemetry::MetricsRegistry& registry) {
  const protocols::HttpServer* srv = &server;
  server.route("GET", "/metrics", [srv, &registry](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    res.status = 200;
    res.content_type = "text/plain; version=0.0.4; charset=utf-8";
    res.body = registry.render();
  });
}

}  // namespace kaisha::telemetry_http
