// SseEventReader: the client side of an event stream a reader resumes (MCP
// Streamable HTTP, kaisha's /events).
// Unlike the LLM stream parser it keeps what resumption needs: the id of the
// last event (sent back as Last-Event-ID when the stream is reopened) and the
// server's "retry:" delay (how long to wait before reopening it). Bytes may
// arrive split anywhere; "\n" and "\r\n" line ends are accepted.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/llm/sse_parser.hpp"

namespace kaisha::llm {

struct SseMessage {
  std::string event;  // "" when the event had no "event:" line
  std::string id;     // "" when the event had no "id:" line
  std::string data;   // "data:" lines joined with '\n'; "" for a priming event
};

class SseEventReader {
 public:
  // Calls `on_event` for each complete event that had a data line (a priming
  // event "id: x\ndata: \n\n" is dispatched with empty data).
  void feed(std::string_view bytes, const std::function<void(const SseMessage&)>& on_event);

  // The last "id:" seen (it persists across events, as in EventSource).
  const std::string& last_event_id() const { return last_id_; }
  // The last valid "retry:" in milliseconds, if the server sent one.
  std::optional<int64_t> retry_ms() const { return retry_ms_; }

 private:
  void line(std::string_view l, const std::function<void(const SseMessage&)>& on_event);

  LineSplitter lines_;
  SseMessage cur_;
  bool has_data_ = false;
  std::string last_id_;
  std::optional<int64_t> retry_ms_;
};

}  // namespace kaisha::llm
