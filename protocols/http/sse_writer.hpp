// SseWriter: the sending end of one `text/event-stream` HTTP response. A
// handler creates it with HttpResponse::start_sse(), may hand it to any other
// thread, and pushes events until it calls close(). Sending never blocks: an
// event is queued, and the server's stream loop (stream_loop.hpp) writes the
// queue out in order once the response headers are written; no thread waits
// on the stream meanwhile.
//
// The queue is bounded (max_queued_bytes, counting what the loop has not yet
// taken; one event larger than the bound is still accepted into an empty
// queue): a client that reads more slowly than events arrive is dropped —
// send() returns false, overflowed() is true and the server logs it — instead
// of growing the queue without end.
//
// Client disconnects are noticed by the loop (the peer closed, or a write
// failed); an idle stream writes a comment line every heartbeat interval
// (HttpServerOptions::sse_heartbeat_ms), so a peer that went away silently is
// noticed within about one interval even when no events flow. After that,
// after close() has been written out, or after abort(), send() returns false
// and the on_close callback has run (once). The callback never runs inside
// send() or close(), so a producer may hold its own lock while it sends.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace kaisha::protocols {

// One SSE event in wire form: optional "event:" and "id:" lines, the data
// split into "data:" lines at each '\n', a blank line.
std::string format_sse_event(std::string_view data, std::string_view event = {}, std::string_view id = {});

class SseWriter {
 public:
  static constexpr size_t kDefaultMaxQueuedBytes = 8u << 20;

  explicit SseWriter(size_t max_queued_bytes = kDefaultMaxQueuedBytes) : max_queued_(max_queued_bytes) {}
  SseWriter(const SseWriter&) = delete;
  SseWriter& operator=(const SseWriter&) = delete;

  // Queues one event. False (and nothing queued) once the stream is closed,
  // or when the queue would exceed its bound (the stream is then dropped).
  bool send(std::string_view data, std::string_view event = {}, std::string_view id = {});
  // Queues "retry: <ms>", telling the client how long to wait before
  // reconnecting; false once closed.
  bool send_retry(int64_t ms);
  // Queues raw SSE text (must end with a blank line); false once closed.
  bool send_raw(std::string text);

  // Ends the response once what was queued has been written. Idempotent.
  void close();
  // Ends the response now, dropping what is queued (the server is stopping).
  void abort();
  // True after close()/abort() or once the client went away.
  bool closed() const;
  // True when the client went away (or was dropped) rather than close().
  bool disconnected() const;
  // True when the client was dropped because its queue was full.
  bool overflowed() const;

  // Called once, from whichever thread notices, when the stream ends for any
  // reason. Set it before handing the writer to other threads; if the stream
  // has already ended it runs at once.
  void on_close(std::function<void()> callback);

  // ---- for the HTTP server ----
  // From now on `wake` is called, on the sending thread and without blocking,
  // whenever there is something new for the server: queued text after the
  // server took everything, close(), or the stream's end.
  void attach(std::function<void()> wake);
  struct Batch {
    std::string text;     // everything queued, in order
    bool finish = false;  // close() was called and nothing remains: end the response
    bool ended = false;   // aborted, dropped or disconnected: drop the connection
  };
  // Takes what is queued, without waiting.
  Batch take();
  // True once nothing more will be written (abort, overflow, disconnect).
  bool ended() const;
  // The connection failed or ended: marks the writer closed, runs on_close.
  void mark_ended(bool disconnected);

 private:
  void fire_close_locked(std::unique_lock<std::mutex>& lock);
  // The wake hook, when the server should be told now.
  std::function<void()> wake_locked(bool always);

  const size_t max_queued_;
  mutable std::mutex mu_;
  std::deque<std::string> queue_;
  size_t queued_bytes_ = 0;
  bool closing_ = false;  // close() called: finish after draining
  bool ended_ = false;    // nothing more will be written
  bool disconnected_ = false;
  bool overflowed_ = false;
  bool close_fired_ = false;
  bool wake_pending_ = false;  // the server was woken and has not taken yet
  std::function<void()> on_close_;
  std::function<void()> wake_;
};

}  // namespace kaisha::protocols
