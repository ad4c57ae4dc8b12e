#include "runtime/telemetry/span_exporter.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <system_error>

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/http/retry_after.hpp"
#include "runtime/telemetry/otlp_json.hpp"

namespace kaisha::telemetry {
namespace detail {

// The outcome of one attempt to deliver one batch.
struct SendResult {
  bool ok = false;
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;  // the server's Retry-After
  std::string error;                                     // why not ok
};

// Where batches go. Called only from the exporter's background thread.
class SpanSink {
 public:
  virtual ~SpanSink() = default;
  // Delivers one request body. `abandon` turning true asks a transfer in
  // flight to stop (shutdown's deadline passed).
  virtual SendResult send(const std::string& body, std::chrono::milliseconds timeout,
                          const std::atomic<bool>& abandon) = 0;
};

}  // namespace detail

namespace {

using detail::SendResult;
using detail::SpanSink;

// ---- the file ----

// One line per batch, written with a single write() on an O_APPEND
// descriptor, so that lines from two writers (two processes tracing into one
// file) do not interleave mid-line.
class FileSink final : public SpanSink {
 public:
  FileSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileSink() override { ::close(fd_); }

  SendResult send(const std::string& body, std::chrono::milliseconds, const std::atomic<bool>&) override {
    // The body and its newline in one writev(): no copy of a large body.
    static const char kNewline = '\n';
    const size_t total = body.size() + 1;
    size_t written = 0;
    while (written < total) {
      iovec parts[2];
      int count = 0;
      if (written < body.size()) parts[count++] = {const_cast<char*>(body.data()) + written, body.size() - written};
      parts[count++] = {const_cast<char*>(&kNewline), 1};
      const ssize_t n = ::writev(fd_, parts, count);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        return {false, false, std::nullopt, "cannot write trace file '" + path_ + "': " + std::strerror(errno)};
      written += static_cast<size_t>(n);
    }
    return {true, false, std::nullopt, ""};
  }

 private:
  int fd_;
  std::string path_;
};

// ---- OTLP/HTTP ----

void ensure_curl_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// A proxy from the environment is kept for a remote collector but never used
// for one on loopback (the usual local collector, and the tests).
std::string no_proxy_list() {
  std::string s;
  for (const char* var : {"no_proxy", "NO_PROXY"}) {
    if (const char* v = std::getenv(var); v && *v) {
      s = std::string(v) + ",";
      break;
    }
  }
  return s + "localhost,127.0.0.1,::1";
}

bool retryable_status(long status) { return status == 429 || status == 502 || status == 503 || status == 504; }

// curl failures where the server may well answer next time: OTLP asks a
// client to retry when it cannot connect or the server disconnects.
bool retryable_curl_error(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

// One easy handle for the exporter's life: curl keeps the connection to the
// collector alive between batches.
class HttpSink final : public SpanSink {
 public:
  HttpSink(std::string url, const std::map<std::string, std::string>& headers) : url_(std::move(url)) {
    ensure_curl_initialized();
    easy_ = curl_easy_init();
    headers_ = curl_slist_append(headers_, "Content-Type: application/json");
    headers_ = curl_slist_append(headers_, "Expect:");  // no 100-continue round trip for large batches
    for (const auto& [name, value] : headers) headers_ = curl_slist_append(headers_, (name + ": " + value).c_str());
  }
  ~HttpSink() override {
    if (easy_) curl_easy_cleanup(easy_);
    curl_slist_free_all(headers_);
  }

  bool ready() const { return easy_ != nullptr; }

  SendResult send(const std::string& body, std::chrono::milliseconds timeout,
                  const std::atomic<bool>& abandon) override {
    Response response;
    Progress progress{&abandon};
    const long timeout_ms = std::max<long>(1, static_cast<long>(timeout.count()));
    curl_easy_setopt(easy_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);  // a multi-threaded process
    curl_easy_setopt(easy_, CURLOPT_NOPROXY, no_proxy_.c_str());
    curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(easy_, CURLOPT_POST, 1L);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &HttpSink::on_body);
    curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &response);
    curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &HttpSink::on_header);
    curl_easy_setopt(easy_, CURLOPT_HEADERDATA, &response);
    curl_easy_setopt(easy_, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy_, CURLOPT_XFERINFOFUNCTION, &HttpSink::on_progress);
    curl_easy_setopt(easy_, CURLOPT_XFERINFODATA, &progress);
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, errbuf);

    const CURLcode code = curl_easy_perform(easy_);
    curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, nullptr);  // errbuf is about to go away
    if (code != CURLE_OK) {
      const std::string why = errbuf[0] ? errbuf : curl_easy_strerror(code);
      return {false, retryable_curl_error(code), std::nullopt, "POST " + url_ + ": " + why};
    }
    long status = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) return {true, false, std::nullopt, ""};
    SendResult r{false, retryable_status(status), std::nullopt,
                 "HTTP " + std::to_string(status) + " from " + url_ + ": " + utf8::one_line(response.body, 300)};
    if (!response.retry_after.empty()) r.retry_after = http::parse_retry_after(response.retry_after);
    return r;
  }

 private:
  struct Response {
    std::string body;  // the first bytes only: it is for an error message
    std::string retry_after;
  };
  struct Progress {
    const std::atomic<bool>* abandon;
  };

  static size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* r = static_cast<Response*>(user);
    const size_t bytes = size * n;
    if (r->body.size() < 1024) r->body.append(data, std::min(bytes, 1024 - r->body.size()));
    return bytes;
  }

  static size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* r = static_cast<Response*>(user);
    const size_t bytes = size * n;
    std::string_view line(data, bytes);
    constexpr std::string_view kName = "retry-after:";
    if (line.size() > kName.size()) {
      if (ascii_lower(line.substr(0, kName.size())) == kName) {
        std::string_view v = line.substr(kName.size());
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
        r->retry_after = std::string(v);
      }
    }
    return bytes;
  }

  // Non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK). curl calls it
  // at least about once a second even while nothing moves.
  static int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<Progress*>(user)->abandon->load() ? 1 : 0;
  }

  std::string url_;
  std::string no_proxy_ = no_proxy_list();
  CURL* easy_ = nullptr;
  curl_slist* headers_ = nullptr;
};

// An http:// or https:// URL with a host, as curl reads it.
bool valid_endpoint(const std::string& url) {
  CURLU* u = curl_url();
  if (!u) return false;
  bool ok = curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK;
  char* scheme = nullptr;
  char* host = nullptr;
  ok = ok && curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
       curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK;
  ok = ok && (std::strcmp(scheme, "http") == 0 || std::strcmp(scheme, "https") == 0) && host && *host;
  curl_free(scheme);
  curl_free(host);
  curl_url_cleanup(u);
  return ok;
}

}  // namespace

Result<std::unique_ptr<SpanExporter>> SpanExporter::start(SpanExporterOptions options) {
  if (options.endpoint.empty() == options.file.empty())
    return Error{"config", "telemetry: give exactly one of an OTLP endpoint URL or a trace file"};
  if (options.queue_capacity < 1 || options.batch_size < 1 || options.max_attempts < 1)
    return Error{"config", "telemetry: queue capacity, batch size and attempts must each be at least 1"};
  // A zero interval would have the background thread spin on an empty queue.
  if (options.interval.count() < 1 || options.request_timeout.count() < 1)
    return Error{"config", "telemetry: the export interval and the request timeout must be at least 1 ms"};
  if (options.retry_base_delay.count() < 0 || options.retry_max_delay.count() < 0 ||
      options.shutdown_timeout.count() < 0)
    return Error{"config", "telemetry: retry delays and the shutdown timeout cannot be negative"};
  std::unique_ptr<detail::SpanSink> sink;
  if (!options.endpoint.empty()) {
    ensure_curl_initialized();  // curl_url() needs it too
    if (!valid_endpoint(options.endpoint))
      return Error{"config",
                   "telemetry: the OTLP endpoint must be an http:// or https:// URL (e.g. "
                   "http://127.0.0.1:4318/v1/traces), got \"" +
                       options.endpoint + "\""};
    auto http = std::make_unique<HttpSink>(options.endpoint, options.headers);
    if (!http->ready()) return Error{"config", "telemetry: curl could not make a handle for " + options.endpoint};
    sink = std::move(http);
  } else {
    const int fd = ::open(options.file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return Error{"io",
                   "telemetry: cannot open trace file '" + options.file + "' for appending: " + std::strerror(errno)};
    sink = std::make_unique<FileSink>(fd, options.file);
  }
  try {
    return std::unique_ptr<SpanExporter>(new SpanExporter(std::move(options), std::move(sink)));
  } catch (const std::system_error& e) {  // the thread could not be started
    return Error{"io", std::string("telemetry: cannot start the exporter thread: ") + e.what()};
  }
}

SpanExporter::SpanExporter(SpanExporterOptions options, std::unique_ptr<detail::SpanSink> sink)
    : options_(std::move(options)), sink_(std::move(sink)), worker_([this] { run(); }) {}

SpanExporter::~SpanExporter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    stop_deadline_ = Clock::now() + options_.shutdown_timeout;
  }
  wake_.notify_all();
  {
    // Give the background thread until the deadline to send what is queued;
    // then a transfer still in flight is told to stop.
    std::unique_lock<std::mutex> lock(mu_);
    handled_.wait_until(lock, stop_deadline_, [&] { return finished_; });
  }
  abandon_ = true;
  worker_.join();
}

void SpanExporter::record(Span span) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= options_.queue_capacity) {
      ++dropped_;
      return;
    }
    queue_.push_back(std::move(span));
    ++enqueued_;
    // Wake the thread only when a batch has just become full; below that it
    // wakes by itself when the interval is up.
    if (queue_.size() != options_.batch_size) return;
  }
  wake_.notify_one();
}

bool SpanExporter::flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = enqueued_;
  if (done_ >= target) return true;
  flush_target_ = std::max(flush_target_, target);
  wake_.notify_one();
  return handled_.wait_for(lock, timeout, [&] { return done_ >= target; });
}

std::string SpanExporter::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

void SpanExporter::note_error(std::string message) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    last_error_ = std::move(message);
  } catch (...) {  // out of memory: the message is lost, the thread goes on
  }
}

bool SpanExporter::shutdown_deadline_passed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_ && Clock::now() >= stop_deadline_;
}

bool SpanExporter::pause_until(Clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // Recomputed after every wake-up: the destructor may have set a deadline.
    const Clock::time_point limit = stopping_ ? std::min(until, stop_deadline_) : until;
    if (Clock::now() >= limit) break;
    wake_.wait_until(lock, limit);
  }
  return !(stopping_ && Clock::now() >= stop_deadline_);
}

void SpanExporter::run() {
  std::unique_lock<std::mutex> lock(mu_);
  Clock::time_point next_export = Clock::now() + options_.interval;
  for (;;) {
    wake_.wait_until(lock, next_export,
                     [&] { return stopping_ || queue_.size() >= options_.batch_size || flush_target_ > done_; });
    if (queue_.empty()) {
      if (stopping_) break;
      next_export = Clock::now() + options_.interval;
      continue;
    }
    if (stopping_ && Clock::now() >= stop_deadline_) {
      // Out of time: what is left is given up on.
      failed_ += queue_.size();
      done_ += queue_.size();
      queue_.clear();
      break;
    }
    // Woken for a full batch, a flush, shutdown or the interval: each way, the
    // spans at the front go now. A partial batch goes only in the last three
    // cases, which is why the wait above does not return for one otherwise.
    const size_t n = std::min(queue_.size(), options_.batch_size);
    std::vector<Span> batch(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + n));
    queue_.erase(queue_.begin(), queue_.begin() + n);
    lock.unlock();
    bool ok = false;
    try {
      ok = export_batch(std::move(batch));
    } catch (const std::exception& e) {
      note_error(std::string("exporting spans: ") + e.what());
    } catch (...) {
      note_error("exporting spans: an unknown exception");
    }
    (ok ? exported_ : failed_) += n;
    lock.lock();
    done_ += n;
    handled_.notify_all();
    // The interval restarts after every export, so spans trickling in while a
    // request was under way wait to fill a batch instead of each going alone.
    next_export = Clock::now() + options_.interval;
  }
  finished_ = true;
  handled_.notify_all();
}

bool SpanExporter::export_batch(std::vector<Span> batch) {
  const std::string body = encode_otlp_json(SpanBatch{options_.node, std::move(batch)});
  std::chrono::milliseconds delay = options_.retry_base_delay;
  for (int attempt = 1;; ++attempt) {
    if (shutdown_deadline_passed()) {
      note_error("shutdown's deadline passed before these spans could be sent");
      return false;
    }
    const SendResult r = sink_->send(body, options_.request_timeout, abandon_);
    if (r.ok) return true;
    note_error(r.error);
    if (!r.retryable || attempt >= options_.max_attempts) return false;
    const std::chrono::milliseconds wait = std::min(r.retry_after.value_or(delay), options_.retry_max_delay);
    if (!pause_until(Clock::now() + wait)) return false;
    delay = std::min(delay * 2, options_.retry_max_delay);
  }
}

}  // namespace kaisha::telemetry
