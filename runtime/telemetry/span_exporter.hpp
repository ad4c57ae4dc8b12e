// SpanExporter: takes finished spans from any thread and sends them, in
// batches, as OTLP/HTTP JSON (otlp_json.hpp) to a collector's /v1/traces, or
// appends them to a trace file, one ExportTraceServiceRequest per line.
//
// Tracing must never slow down or break the work it observes, so:
//   - record() never waits for I/O: it appends to a bounded in-memory queue
//     under a mutex that is only ever held to push or to take a batch, and
//     when the queue is full the span is dropped and counted (dropped());
//   - all I/O happens on one background thread the exporter owns: it sends a
//     batch when batch_size spans are waiting or `interval` has passed since
//     the last export ended, whichever comes first;
//   - an export that fails is retried (HTTP 429, 502, 503, 504, and a
//     connection that failed or timed out, as OTLP asks) with capped
//     exponential backoff, honouring Retry-After up to the cap, then its spans
//     are dropped and counted (failed()); any other answer fails at once;
//   - nothing thrown on the background thread escapes it.
//
// Thread-safety: record(), flush() and the counters may be called from any
// number of threads at once. The exporter must outlive those calls; destroy
// it from a thread that is not in one of them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/telemetry/span.hpp"

namespace kaisha::telemetry {

struct SpanExporterOptions {
  // Exactly one of these two.
  std::string endpoint;  // OTLP/HTTP traces URL, http:// or https://, e.g. http://127.0.0.1:4318/v1/traces
  std::string file;      // a trace file, opened for appending (created if missing)

  std::map<std::string, std::string> headers;  // extra HTTP headers, e.g. {"Authorization", "Bearer x"}
  std::string node;                            // the resource's kaisha.node / service.instance.id; "" = none

  size_t queue_capacity = 4096;                     // spans waiting at most; more are dropped
  size_t batch_size = 512;                          // spans per request (per line of the file) at most
  std::chrono::milliseconds interval{1000};         // the most time between exports while spans wait
  std::chrono::milliseconds request_timeout{5000};  // one HTTP attempt, connection included
  int max_attempts = 4;                             // HTTP attempts per batch, the first included
  std::chrono::milliseconds retry_base_delay{200};  // delay before the first retry; doubled per retry
  std::chrono::milliseconds retry_max_delay{5000};  // cap of a delay (and of a Retry-After)
  // How long destruction may spend sending what is still queued. A transfer
  // in flight is abandoned within about a second of it.
  std::chrono::milliseconds shutdown_timeout{5000};
};

namespace detail {
class SpanSink;  // where batches go: the HTTP endpoint or the file (span_exporter.cpp)
}

class SpanExporter {
 public:
  // Checks the options, opens the file (or prepares the HTTP handle) and
  // starts the background thread. Errors: code "config" for an endpoint that
  // is not an http:// or https:// URL, for neither or both of endpoint and
  // file, for a capacity, batch size or attempt count below 1, for an interval
  // or request timeout under 1 ms and for a negative delay; code "io" for a
  // file that cannot be opened for appending (the message names it and the
  // system's reason) or a thread that cannot be started.
  static Result<std::unique_ptr<SpanExporter>> start(SpanExporterOptions options);

  // Sends what is queued, for at most options.shutdown_timeout (spans left
  // then are counted failed), and joins the background thread.
  ~SpanExporter();
  SpanExporter(const SpanExporter&) = delete;
  SpanExporter& operator=(const SpanExporter&) = delete;

  // Queues `span` for export. Never waits for I/O; drops the span (counting
  // it in dropped()) when the queue holds queue_capacity spans.
  void record(Span span);

  // Asks the background thread to export every span recorded before this call
  // now, without waiting for a full batch or the interval, and waits until each
  // of them has been exported or given up on (failed()). False when `timeout`
  // passed first. Spans recorded meanwhile may or may not be included.
  bool flush(std::chrono::milliseconds timeout = std::chrono::seconds(10));

  uint64_t exported() const { return exported_.load(); }  // spans the endpoint accepted / written to the file
  uint64_t dropped() const { return dropped_.load(); }    // spans refused because the queue was full
  uint64_t failed() const { return failed_.load(); }      // spans whose export failed for good
  // What went wrong last ("HTTP 400 from http://...: <body>", "cannot write
  // traces.jsonl: No space left on device"), "" when nothing has.
  std::string last_error() const;

 private:
  using Clock = std::chrono::steady_clock;

  SpanExporter(SpanExporterOptions options, std::unique_ptr<detail::SpanSink> sink);
  void run();
  // True when the batch was delivered; false when it was given up on.
  bool export_batch(std::vector<Span> batch);
  void note_error(std::string message);
  // Sleeps until `until`, cut short when shutdown's deadline comes first.
  // False when that deadline has passed (the caller gives up).
  bool pause_until(Clock::time_point until);
  bool shutdown_deadline_passed() const;

  const SpanExporterOptions options_;
  std::unique_ptr<detail::SpanSink> sink_;

  mutable std::mutex mu_;
  std::condition_variable wake_;     // the background thread waits on it
  std::condition_variable handled_;  // flush() waits on it
  std::deque<Span> queue_;
  uint64_t enqueued_ = 0;      // spans ever queued
  uint64_t done_ = 0;          // of those, spans exported or given up on
  uint64_t flush_target_ = 0;  // export at once until done_ reaches it
  bool stopping_ = false;      // the destructor has begun: drain, then end
  bool finished_ = false;      // run() has returned
  Clock::time_point stop_deadline_;
  std::string last_error_;

  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<bool> abandon_{false};  // shutdown's deadline passed: abort a transfer in flight

  std::thread worker_;  // last: started once everything above exists
};

}  // namespace kaisha::telemetry
