// GET /metrics: a MetricsRegistry in the Prometheus text exposition format
// (version 0.0.4), for any Prometheus-compatible scraper. The server's rules
// apply as to every endpoint: with a bearer token the scraper sends it
// (Prometheus's `authorization` setting), and Host and Origin are checked.
#pragma once

#include "protocols/http/http_server.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::telemetry_http {

// Mounts GET /metrics on `server` (before it starts). `registry` must outlive it.
void mount_metrics(protocols::HttpServer& server, const telemetry::MetricsRegistry& registry);

}  // namespace kaisha::telemetry_http
