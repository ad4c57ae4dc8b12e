// PostAnswer decides how a POST whose client accepts both forms is answered:
// one JSON object or an event stream (Streamable HTTP lets the server pick).
//
// The request runs on another thread and hands its messages here. When its
// response is the first message and arrives within the wait, the answer is
// that one JSON object: no stream, no priming event, and the connection stays
// open for the client's next request. A message to the client first (a
// progress notification, a log line, a sampling or elicitation request), or
// the wait running out, makes it an event stream, which gets every message in
// order, the held ones first. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "protocols/mcp/server/event_stream.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::mcp {

class PostAnswer {
 public:
  // The request's side. send() returns false once the stream has finished.
  bool send(const json& message);
  // The request ended: its response, or none (a notification).
  void respond(std::optional<json> response);
  // The request asks to close the connection (SSE polling): kept for the stream.
  void detach();

  // The HTTP thread's side. Waits up to `wait` for the first message. When it
  // is the response, returns it (the answer is JSON; nothing is streamed).
  // Otherwise returns nullopt, and the caller opens a stream and calls
  // stream_to().
  std::optional<std::optional<json>> wait_for_json(std::chrono::milliseconds wait);
  // From now on every message goes to `stream`; the held ones go first, and
  // the stream is finished once the response has been sent.
  void stream_to(std::shared_ptr<EventStream> stream);

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<json> held_;                       // messages before the decision
  std::optional<std::optional<json>> response_;  // set once the request ended
  bool detach_ = false;
  bool json_ = false;  // answered as one JSON object
  std::shared_ptr<EventStream> stream_;
};

}  // namespace kaisha::mcp
