// HttpRequestParser: reads HTTP/1.1 requests, one after another, from the
// bytes of one connection as they arrive. It knows request lines, headers,
// Content-Length and chunked request bodies, keep-alive (HTTP/1.1 default,
// "Connection: close", HTTP/1.0 with "Connection: keep-alive") and
// "Expect: 100-continue". Pure logic, no sockets: EventHttpServer feeds it.
//
// A malformed or oversized request makes next() return `error` with the HTTP
// status to answer (400, 413, 431, 501, 505) and a message saying what was
// wrong; the connection cannot be read further after that.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kaisha::mockllm {

struct HttpRequest {
  std::string method;     // as sent, e.g. "POST"
  std::string target;     // request-target as sent: "/v1beta/models/m:streamGenerateContent?alt=sse"
  std::string path;       // target up to '?'
  std::string query;      // after '?', or ""
  int minor_version = 1;  // HTTP/1.<minor>
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;                                          // decoded (chunked framing removed)
  bool keep_alive = true;                                    // the connection may carry another request after this one

  // The first value of header `lower_name` (lower-case), or "" when absent.
  std::string header(std::string_view lower_name) const;
};

class HttpRequestParser {
 public:
  struct Limits {
    size_t max_header_bytes = 64u << 10;  // request line + headers
    size_t max_body_bytes = 64u << 20;
  };
  enum class State { need_more, complete, error };

  HttpRequestParser() = default;
  explicit HttpRequestParser(Limits limits) : limits_(limits) {}

  // Appends bytes received from the connection.
  void feed(std::string_view bytes);

  // Parses the next request from the bytes fed so far. `complete`: `out` holds
  // it and its bytes are consumed (call again for a pipelined one).
  // `need_more`: feed more bytes. `error`: see error_status()/error_message().
  State next(HttpRequest& out);

  // True once per request whose headers asked for "Expect: 100-continue"
  // while its body has not fully arrived: the server should send
  // "HTTP/1.1 100 Continue" now.
  bool take_continue();

  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }
  // Bytes fed and not yet consumed by a complete request.
  size_t buffered() const { return buf_.size(); }

 private:
  State fail(int status, std::string message);
  State parse_head();          // request line + headers of the pending request
  State parse_chunked_body();  // advances through chunks already buffered

  Limits limits_;
  std::string buf_;
  bool failed_ = false;
  int error_status_ = 0;
  std::string error_message_;

  // The request whose head is parsed and whose body is still arriving.
  bool have_head_ = false;
  HttpRequest pending_;
  size_t body_start_ = 0;      // offset of the body in buf_
  size_t content_length_ = 0;  // for a Content-Length body
  bool chunked_ = false;
  size_t chunk_cursor_ = 0;   // offset in buf_ of the next chunk-size line
  bool chunks_done_ = false;  // the last chunk was read; trailers follow
  bool continue_due_ = false;
};

}  // namespace kaisha::mockllm
