// StreamLoop: one thread that carries every open event stream of an
// HttpServer, so that an open stream holds a socket and a queue but no
// thread. A connection thread writes a stream's response headers, then hands
// the socket over (adopt) and is free again; from then on the loop (epoll,
// non-blocking writes) sends the writer's events as HTTP chunks in the order
// they were queued, a comment line on a stream idle for a heartbeat interval,
// and the end of the response after SseWriter::close().
//
// A stream is dropped, with a log line, when its client stops reading
// (nothing written for write_timeout_ms while data waits, or its writer's
// queue overflowed). A client that closes its end is noticed at once. Either
// way the socket is closed, the writer ends (its on_close runs on the loop
// thread, so producers release what they hold for the stream), then the
// `released` callback given to adopt() runs.
//
// Thread-safety: adopt() from any thread; start()/stop() from one.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "protocols/http/sse_writer.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::protocols {

struct StreamLoopOptions {
  int64_t heartbeat_ms = 15'000;      // comment line on a stream idle this long
  int64_t write_timeout_ms = 30'000;  // a client that reads nothing this long while data waits is dropped
  // Where drop notices go (the server rate-limits them); stderr when empty.
  std::function<void(const std::string&)> log;
};

class StreamLoop {
 public:
  explicit StreamLoop(StreamLoopOptions options);
  ~StreamLoop();  // stop()
  StreamLoop(const StreamLoop&) = delete;
  StreamLoop& operator=(const StreamLoop&) = delete;

  // Starts the loop's thread; the error says why not.
  Status start();
  // Takes over a connection whose response headers (announcing a chunked
  // body) are written: `fd` (non-blocking), `ssl` (may be null; the loop
  // frees it), the writer whose events it carries, and `peer` (for log
  // lines). `released` runs once the socket is closed. False when the loop
  // is not running: then nothing was taken.
  bool adopt(int fd, SSL* ssl, std::shared_ptr<SseWriter> writer, std::string peer, std::function<void()> released);
  // Aborts every stream, closes their sockets, joins the thread. Idempotent.
  void stop();

  // Streams carried now (adopted, not yet closed).
  size_t streams() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::protocols
