// Reads a `/events` stream (kaisha serve, a CEO node) as a client that is
// left open: each event is handed over as it arrives; a dropped connection
// (the server restarted, the network blinked) is reopened after a pause,
// resuming after the last event seen (Last-Event-ID), so nothing the server
// still holds is lost or shown twice.
//
// read_event_stream blocks its calling thread until `on_event` returns
// false, `*stop` becomes true, or a refusal that retrying cannot fix (4xx:
// a wrong token, a bad filter), which is returned as an error with the
// server's own message. on_event and on_status run on an HTTP loop thread,
// one at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::telemetry {

struct EventStreamOptions {
  std::string url;    // the stream's URL, query included
  std::string token;  // sent as a bearer token when not empty
  std::string after;  // resume after this event id ("" from what the server holds)
  int64_t reconnect_ms = 1000;
  int max_reconnects = -1;  // -1: keep trying
};

struct StreamedEvent {
  std::string id;    // the server's event id
  std::string name;  // "" for an event; "missed" when the server no longer held some
  json data;         // the event's JSON (discarded when its data was not JSON)
};

Status read_event_stream(const EventStreamOptions& options, const std::function<bool(const StreamedEvent&)>& on_event,
                         const std::function<void(const std::string& status)>& on_status,
                         const std::atomic<bool>* stop = nullptr);

}  // namespace kaisha::telemetry
