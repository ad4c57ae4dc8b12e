// EventStream: one logical SSE stream of an MCP Streamable HTTP session (a
// POST's response or a GET stream), kept apart from the HTTP connection that
// currently carries it. Every message gets an event id "<stream>:<seq>" and
// is remembered (the last kMaxKept), so a client whose connection dropped —
// or that the server disconnected on purpose (SSE polling, SEP-1699) — can
// reconnect with GET + Last-Event-ID and receive what it missed, then the
// rest. Thread-safe. Made with std::make_shared (attach() hands the writer
// a weak reference, so that a connection that ends lets go of the stream at
// once rather than at the next message).
//
// A modern (2026-07-28) request's stream does not resume: made with
// resumable = false, its events carry no ids, nothing is kept, and send()
// returns false once the connection is gone — which is how the request
// learns that the client cancelled it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "protocols/http/sse_writer.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::mcp {

class EventStream : public std::enable_shared_from_this<EventStream> {
 public:
  static constexpr size_t kMaxKept = 1000;

  explicit EventStream(std::string id, bool resumable = true) : id_(std::move(id)), resumable_(resumable) {}
  const std::string& id() const { return id_; }

  // Records `message` and writes it to the attached connection, if any.
  // Returns false once the stream has finished (or, when not resumable, once
  // its connection is gone).
  bool send(const json& message);
  // The last message was sent: the connection is closed after it.
  void finish();
  // Closes the current connection but keeps the stream (messages are kept
  // for a reconnect).
  void detach();
  // Puts `writer` in charge: replays messages after `after_seq`, then, when
  // the stream has finished, closes it.
  void attach(const std::shared_ptr<protocols::SseWriter>& writer, uint64_t after_seq);
  // "id: <stream>:0" with no data: the priming event a client can resume from.
  void prime(const std::shared_ptr<protocols::SseWriter>& writer, int64_t retry_ms);

  bool finished() const;
  bool connected() const;
  // `f` runs (once, on the stream loop's thread) when the client goes away
  // before the stream finished: a modern request's cancellation.
  void on_disconnect(std::function<void()> f);

  // Splits "<stream>:<seq>"; nullopt when malformed.
  static std::optional<std::pair<std::string, uint64_t>> parse_event_id(const std::string& id);

 private:
  const std::string id_;
  const bool resumable_;
  mutable std::mutex mu_;
  std::deque<std::pair<uint64_t, std::string>> kept_;
  uint64_t next_seq_ = 1;
  bool finished_ = false;
  std::shared_ptr<protocols::SseWriter> writer_;
  std::function<void()> on_disconnect_;
};

}  // namespace kaisha::mcp
