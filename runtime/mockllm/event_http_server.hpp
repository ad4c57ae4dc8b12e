// EventHttpServer: a small HTTP/1.1 server that runs on one thread: epoll,
// non-blocking sockets, keep-alive connections, and timers in place of
// sleeping threads. Any number of requests can wait (a scripted latency, a
// hang) at the cost of a timer each, so a thousand slow requests in flight
// need no thousand threads — which is what the mock LLM server needs.
//
// The handler runs on the server's thread for every complete request and
// must not block. It answers through the Reply it is given, at once or later
// from a timer set with after(). Each request must be answered exactly once;
// a connection serves its next request only after the current one is
// answered. Replying to a connection the client has closed does nothing.
//
// Responses are never compressed. A response to "Connection: close" or an
// HTTP/1.0 request closes the connection once written.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/mockllm/http_request_parser.hpp"

namespace kaisha::mockllm {

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Retry-After
  std::string body;
};

class EventHttpServer {
 public:
  struct Loop;

  // The answer to one request. Cheap to copy; use it on the server's thread
  // only (in the handler or in a function passed to after()).
  class Reply {
   public:
    // The whole response, with Content-Length.
    void send(const HttpResponse& response) const;
    // `chunks` as a chunked body (HTTP/1.1), ended properly; response.body is
    // ignored. To an HTTP/1.0 client: the chunks joined, then close.
    void send_chunked(const HttpResponse& response, const std::vector<std::string>& chunks) const;
    // The status line and headers of a chunked response, then the connection
    // is closed without a body: a server dying mid-answer.
    void send_headers_then_close(const HttpResponse& response) const;
    // False once the client has closed the connection (or the server stopped).
    bool open() const;

   private:
    friend struct Loop;
    Reply(Loop* loop, uint64_t conn) : loop_(loop), conn_(conn) {}
    Loop* loop_;
    uint64_t conn_;
  };

  using Handler = std::function<void(const HttpRequest&, Reply)>;

  explicit EventHttpServer(Handler handler, HttpRequestParser::Limits limits = {});
  ~EventHttpServer();  // stops the server
  EventHttpServer(const EventHttpServer&) = delete;
  EventHttpServer& operator=(const EventHttpServer&) = delete;

  // Binds host:port (port 0: an ephemeral port), listens and starts the
  // server's thread. Returns the bound port, or an error that names
  // host:port and the cause. Call at most once.
  Result<int> start(const std::string& host, int port);

  // Closes every connection (requests still waiting get no answer), drops
  // the timers and joins the thread. Idempotent, and safe from any thread but
  // the handler's.
  void stop();

  // Runs `fn` on the server's thread after `delay`. Only from the server's
  // thread (the handler or a timer); timers still pending at stop() never run.
  void after(std::chrono::milliseconds delay, std::function<void()> fn);

  // The bound port; 0 until start() has finished, so that another thread
  // seeing it non-zero may use the server (or stop() it).
  int port() const;
  // Connections open now (approximate; for diagnostics and tests).
  size_t connections() const;

 private:
  std::unique_ptr<Loop> loop_;
};

}  // namespace kaisha::mockllm
