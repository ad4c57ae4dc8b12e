// GET /events: a company's progress events as a Server-Sent Events stream,
// for dashboards, `kaisha watch` and scripts. Each SSE event carries one
// event as JSON (msg::progress_event_json: the same fields as the lines of
// `kaisha run --json`) and its id; a client that reconnects with the
// Last-Event-ID header (or `?after=ID`) gets the events it missed, as far as
// the log still holds them. When it holds too few, the stream starts with
// an event named `missed` before the replay.
//
// Query parameters narrow the stream: `task=ID`, `session=ID`,
// `kinds=ask,answer,...` (wire names; an unknown one is answered 400 naming
// it). The server's rules apply as to every endpoint (bearer token, Host
// and Origin: a request failing them gets 401 or 403).
#pragma once

#include <memory>

#include "protocols/http/http_server.hpp"
#include "runtime/company/event_log.hpp"

namespace kaisha::telemetry_http {

// Mounts GET /events on `server` (before it starts). `log` must outlive it.
void mount_events(protocols::HttpServer& server, std::shared_ptr<company::EventLog> log);

}  // namespace kaisha::telemetry_http
