// A single synchronous HTTP request, for start-up probes only (e.g. "is a
// local Ollama running?") before any actor exists. Never call it from an
// actor or an HttpClient callback: it blocks the calling thread until the
// transfer ends or opts.timeout_ms passes.
#pragma once

#include "runtime/http/http_client.hpp"

namespace kaisha::http {

// Performs `req` on the calling thread with a fresh easy handle. Reports
// failures in HttpResult::error exactly as HttpClient does.
HttpResult fetch_blocking(const HttpRequestSpec& req, const HttpOptions& opts);

}  // namespace kaisha::http
