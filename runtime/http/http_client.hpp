// HttpClient: every outgoing HTTP request of a kaisha process goes through one
// of these. A single background thread drives a libcurl multi handle, so any
// number of concurrent requests costs one thread, and connections to the same
// host are kept alive and reused. Nothing here blocks the calling thread:
// submit(), cancel() and schedule() only enqueue work and wake the loop.
//
// Callbacks (HttpCallbacks and schedule()d functions) run on the loop thread.
// They must not block — no sleeping, no waiting on futures, no synchronous
// I/O — because while one runs, no other request makes progress. Actors post
// the result back to themselves; tests may hand it to a promise.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/http/address_policy.hpp"
#include "runtime/llm/http_request_spec.hpp"

namespace kaisha::http {

using llm::HttpRequestSpec;

struct HttpOptions {
  int64_t timeout_ms = 120000;            // whole transfer, connect included; 0 = none
  int64_t connect_timeout_ms = 5000;      // TCP + TLS handshake; 0 = curl's default
  size_t max_response_bytes = 64u << 20;  // body bytes before aborting; 0 = no limit
  // Optional. When set, every address a connection is about to be opened to
  // (after name resolution, each attempt) is checked, and a refused one fails
  // the request with TransportError::refused naming the address. Such
  // requests connect directly (no proxy) on a fresh connection, so the
  // address checked is the server's and no unchecked pooled one is reused.
  std::shared_ptr<const AddressPolicy> address_policy;
};

// Why a request produced no complete HTTP response. `none` means the server
// answered, whatever its status code.
// `refused`: HttpOptions::address_policy refused the server's address.
enum class TransportError { none, timeout, connect, cancelled, too_large, refused, other };

const char* to_string(TransportError e);

struct HttpResult {
  int status = 0;                              // HTTP status, 0 when no response line arrived
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;                            // whole body, or for a streamed 2xx response empty
  TransportError error = TransportError::none;
  std::string error_message;  // human-readable cause when error != none

  // True when the transfer completed and the status is 2xx.
  bool ok() const { return error == TransportError::none && status >= 200 && status < 300; }
  // The header's value, or "" when absent. `name` must be lower-case.
  std::string header(const std::string& name) const;
};

struct HttpCallbacks {
  // Optional. Called once, when the final response's headers are complete.
  std::function<void(int status, const std::map<std::string, std::string>& headers)> on_headers;
  // Optional. When set, the body of a 2xx response is delivered piecewise as
  // it arrives and is not kept in HttpResult::body. The body of any other
  // status is still accumulated, so that an error message can be read.
  std::function<void(std::string_view chunk)> on_data;
  // Called exactly once per submitted request, whatever happens.
  std::function<void(HttpResult)> on_done;
};

class HttpClient {
 public:
  // Starts the loop thread.
  HttpClient();
  // Stops the loop: requests in flight or queued complete with `cancelled`,
  // and timers not yet due run at once (so chains of work such as retries can
  // reach their end); requests they submit complete with `cancelled`.
  // Must not be called from a callback.
  ~HttpClient();

  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Queues a request and returns its id (never 0). Thread-safe. `cb.on_done`
  // is always called exactly once, on the loop thread. A malformed request
  // (e.g. an empty URL) completes with TransportError::other.
  uint64_t submit(HttpRequestSpec req, HttpOptions opts, HttpCallbacks cb);

  // Aborts a request; its on_done reports `cancelled`. Ids that are unknown or
  // already done are ignored. Thread-safe; on_data may still see a chunk or
  // two if the transfer is mid-read when this is called.
  void cancel(uint64_t id);

  // Runs `fn` on the loop thread once `delay` has passed. Timers due at the
  // same instant run in the order they were scheduled. Thread-safe.
  void schedule(std::chrono::milliseconds delay, std::function<void()> fn);

  // True on the loop thread, i.e. inside a callback; used to refuse blocking
  // helpers that would deadlock there.
  bool on_loop_thread() const;

  // Number of requests submitted and not yet completed (approximate: for
  // diagnostics and tests).
  size_t in_flight() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::http
