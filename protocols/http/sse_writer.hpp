// SseWriter: the sending end of one `text/event-stream` HTTP response. A
// handler creates it with HttpResponse::start_sse(), may hand it to any other
// thread, and pushes events until it calls close(); the HTTP server thread
// that owns the connection writes them out in order.
//
// Client disconnects are detected by failed writes. An idle stream writes a
// comment line every heartbeat interval (HttpServerOptions::sse_heartbeat_ms),
// so a peer that went away is noticed within about one interval even when no
// events flow. After that, or after close(), send() returns false and the
// on_close callback has run (once). The server's stop() closes every open
// writer, so a handler thread waiting to send never blocks shutdown.
#pragma once

#include <condition_variable>
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
  SseWriter() = default;
  SseWriter(const SseWriter&) = delete;
  SseWriter& operator=(const SseWriter&) = delete;

  // Queues one event. False (and nothing queued) once the stream is closed.
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
  // True when the client went away (a write failed) rather than close().
  bool disconnected() const;

  // Called once, from whichever thread notices, when the stream ends for any
  // reason. Set it before handing the writer to other threads; if the stream
  // has already ended it runs at once.
  void on_close(std::function<void()> callback);

  // ---- for the HTTP server ----
  // Waits up to `wait_ms` for queued text; returns it (possibly empty).
  // `finished` is set when the stream is closed and nothing remains.
  std::string take(int64_t wait_ms, bool& finished);
  // The connection failed or ended: marks the writer closed.
  void mark_ended(bool disconnected);

 private:
  void fire_close_locked(std::unique_lock<std::mutex>& lock);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool closing_ = false;   // close() called: finish after draining
  bool ended_ = false;     // nothing more will be written
  bool disconnected_ = false;
  bool close_fired_ = false;
  std::function<void()> on_close_;
};

}  // namespace kaisha::protocols
