#include "protocols/http/http_server.hpp"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <regex>
#include <thread>

#include "protocols/http/bind_policy.hpp"
#include "protocols/http/connection_limiter.hpp"
#include "protocols/http/connection_stream.hpp"
#include "protocols/http/origin_check.hpp"
#include "protocols/http/request_framing.hpp"
#include "protocols/http/stream_loop.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::protocols {

namespace {

const char* status_word(int status) {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "timeout";
    case 411:
      return "length_required";
    case 413:
      return "too_large";
    case 414:
      return "uri_too_long";
    case 429:
      return "too_many_connections";
    case 415:
      return "unsupported_media_type";
    default:
      return status >= 500 ? "internal" : "error";
  }
}

std::chrono::microseconds us(int64_t ms) { return std::chrono::milliseconds(std::max<int64_t>(ms, 1)); }

// What the connection thread running a request knows that the request does
// not: set by a handler that answered without reading the body, so that the
// unread bytes are not taken for the next request.
struct ConnectionState {
  bool close_after_response = false;
  // An event stream whose headers are written: the connection goes to the
  // stream loop once cpp-httplib is done with it.
  std::shared_ptr<SseWriter> stream;
};
thread_local ConnectionState* tl_connection = nullptr;
// Set while the accept thread itself runs a connection: refuse it at once.
thread_local bool tl_refuse_now = false;

void close_after_response() {
  if (tl_connection) tl_connection->close_after_response = true;
}

// One thread per connection instead of cpp-httplib's fixed pool, which slow
// or long-lived connections fill (with 128 threads, 128 idle streams blocked
// every other request). The number of threads is bounded by the connection
// limits; a connection beyond max_connections is refused on the accept
// thread itself, without a thread.
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(const ConnectionLimiter& limiter) : limiter_(limiter) {}

  void enqueue(std::function<void()> fn) override {
    if (limiter_.total() >= limiter_.max_total()) return refuse_inline(fn);
    {
      std::lock_guard lock(mu_);
      ++running_;
    }
    try {
      std::thread([this, fn] {  // a copy: `fn` must stay usable if the thread cannot start
        fn();
        std::lock_guard lock(mu_);
        if (--running_ == 0) cv_.notify_all();
      })
          .detach();
    } catch (const std::system_error&) {  // out of threads: refuse this one
      {
        std::lock_guard lock(mu_);
        if (--running_ == 0) cv_.notify_all();
      }
      refuse_inline(fn);
    }
  }

  void shutdown() override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  static void refuse_inline(const std::function<void()>& fn) {
    tl_refuse_now = true;
    fn();
    tl_refuse_now = false;
  }

  const ConnectionLimiter& limiter_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t running_ = 0;
};

// A short answer to a connection that is refused before its request is
// read; sent without waiting (the peer may not read), then closed.
void refuse_connection(int fd, int status, const std::string& message) {
  const std::string body = json{{"error", {{"code", status_word(status)}, {"message", message}}}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
  const std::string text = "HTTP/1.1 " + std::to_string(status) +
                           (status == 429 ? " Too Many Requests" : " Service Unavailable") +
                           "\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\n"
                           "Content-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(fd, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

// cpp-httplib's server with our connection handling: the library parses
// requests and routes them (process_request), this class owns each accepted
// socket: admission against the connection limits, TLS, deadlines, and the
// keep-alive loop.
class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(const HttpServerOptions& o)
      : limiter_(o.max_connections, o.max_connections_per_client),
        timeouts_{std::max<int64_t>(o.header_timeout_ms, 1), std::max<int64_t>(o.body_timeout_ms, 1),
                  std::max<int64_t>(o.write_timeout_ms, 1)},
        keep_alive_ms_(std::max<int64_t>(o.keep_alive_timeout_ms, 1)) {}
  ~GuardedServer() override {
    if (tls_) SSL_CTX_free(tls_);
  }

  ConnectionLimiter& limiter() { return limiter_; }
  const ConnectionLimiter& limiter() const { return limiter_; }
  // Where event streams go once their headers are written; set before listening.
  void use_stream_loop(StreamLoop* loop) { loop_ = loop; }
  // Takes ownership of `ctx`: connections speak TLS from now on.
  void use_tls(SSL_CTX* ctx) { tls_ = ctx; }
  bool tls() const { return tls_ != nullptr; }

 private:
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }

  bool process_and_close_socket(socket_t sock) override {
    bool ok = false;
    const std::string client = peer_address(sock);
    if (tl_refuse_now) {
      if (!tls_)
        refuse_connection(
            sock, 503, "the server holds " + std::to_string(limiter_.total()) + " connections, its limit; retry later");
    } else if (auto a = limiter_.admit(client); !a.admitted) {
      if (!tls_) refuse_connection(sock, limiter_.of(client) > 0 ? 429 : 503, a.refusal + "; retry later");
    } else {
      bool handed_off = false;
      ok = serve(sock, client, handed_off);
      if (handed_off) return ok;  // the stream loop closes it and frees its slot
      limiter_.release(client);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  // Runs the connection's requests. When one of them opened an event stream,
  // the socket (and its TLS session) go to the stream loop: `handed_off`.
  bool serve(int sock, const std::string& client, bool& handed_off) {
    SSL* ssl = nullptr;
    if (tls_ && !(ssl = handshake(sock))) return false;
    ConnectionStream stream(sock, ssl, timeouts_);
    ConnectionState state;
    tl_connection = &state;
    bool ok = true;
    for (;;) {
      if (!stream.wait_for_request(keep_alive_ms_, [this] { return stopping(); })) break;
      stream.begin_request();
      bool connection_closed = false;
      ok = process_request(stream, false, connection_closed, nullptr);
      if (!ok || connection_closed || state.close_after_response || stopping()) break;
    }
    tl_connection = nullptr;
    if (state.stream) {
      if (loop_ && loop_->adopt(sock, ssl, state.stream, client, [this, client] { limiter_.release(client); })) {
        handed_off = true;
        return true;
      }
      state.stream->mark_ended(false);  // the server is stopping
    }
    if (ssl) {
      SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    return ok;
  }

  // The handshake is held to the header deadline.
  SSL* handshake(int sock) {
    SSL* ssl = SSL_new(tls_);
    if (!ssl) return nullptr;
    SSL_set_fd(ssl, sock);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeouts_.header_ms);
    for (;;) {
      int r = SSL_accept(ssl);
      if (r == 1) return ssl;
      int e = SSL_get_error(ssl, r);
      short want = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{sock, want, 0};
      if (want == 0 || left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        ERR_clear_error();
        SSL_free(ssl);
        return nullptr;
      }
    }
  }

  ConnectionLimiter limiter_;
  ConnectionTimeouts timeouts_;
  int64_t keep_alive_ms_;
  SSL_CTX* tls_ = nullptr;
  StreamLoop* loop_ = nullptr;
};

// An SSL_CTX serving `cert_file` with `key_file`, or why not.
Result<SSL_CTX*> make_tls_context(const std::string& cert_file, const std::string& key_file) {
  auto fail = [](SSL_CTX* ctx, const std::string& what) -> Error {
    unsigned long code = ERR_get_error();
    char reason[256] = {0};
    if (code) ERR_error_string_n(code, reason, sizeof(reason));
    ERR_clear_error();
    if (ctx) SSL_CTX_free(ctx);
    return Error{"tls", what + (code ? std::string(" (") + reason + ")" : std::string())};
  };
  if (cert_file.empty() != key_file.empty())
    return Error{"tls", "HTTPS needs both a certificate file and a key file (got only the " +
                            std::string(cert_file.empty() ? "key" : "certificate") + ")"};
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return fail(nullptr, "cannot create a TLS context");
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
    return fail(ctx, "cannot load the TLS certificate " + cert_file);
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return fail(ctx, "cannot load the TLS key " + key_file);
  if (SSL_CTX_check_private_key(ctx) != 1)
    return fail(ctx, "the TLS key " + key_file + " does not match the certificate " + cert_file);
  return ctx;
}

// Each connection holds a descriptor: let the process open as many as its
// hard limit allows, up to what the connection limit needs.
void raise_descriptor_limit(size_t connections) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  const rlim_t want = std::min<rlim_t>(rl.rlim_max, static_cast<rlim_t>(connections) * 2 + 1024);
  if (rl.rlim_cur < want) {
    rl.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

// `s` for a log line: control bytes (a peer's escape sequences) become '?', at most 200 bytes.
std::string printable(std::string_view s) {
  std::string out(s.substr(0, 200));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// The reason a request's Authorization does not carry the token, for the log.
std::string token_refusal_reason(const std::string& authorization) {
  if (authorization.empty()) return "no Authorization header";
  if (authorization.size() < 7 || strncasecmp(authorization.c_str(), "Bearer ", 7) != 0)
    return "the Authorization header is not a Bearer token";
  return "wrong bearer token";
}

// "<address>" or "<address>|<fingerprint of the Authorization header>".
std::string client_key(const std::string& remote_addr, const std::string& authorization) {
  if (authorization.empty()) return remote_addr;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016zx", std::hash<std::string>{}(authorization));
  return remote_addr + "|" + hex;
}

// Sends `body` uncompressed. The packaged cpp-httplib compresses every body
// given to set_content() with brotli (quality 11) whenever the client accepts
// "br", and has no switch to turn that off: ~0.3 ms of CPU per small JSON
// answer, more than the rest of a request on loopback. A body of known length
// handed over by a content provider is sent as it is.
void set_uncompressed(httplib::Response& res, std::string body, const std::string& content_type) {
  if (body.empty()) {
    res.set_content(std::string(), content_type);
    return;
  }
  auto shared = std::make_shared<const std::string>(std::move(body));
  res.set_content_provider(shared->size(), content_type,
                           [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(shared->data() + offset, length);
                           });
}

}  // namespace

std::string HttpRequest::header(std::string_view name) const {
  auto it = headers.find(ascii_lower(name));
  return it == headers.end() ? std::string() : it->second;
}

void HttpResponse::set_json(int status_code, const json& j) {
  status = status_code;
  content_type = "application/json";
  body = j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void HttpResponse::set_error(int status_code, std::string_view code, std::string_view message) {
  set_json(status_code, json{{"error", {{"code", code}, {"message", message}}}});
}

std::shared_ptr<SseWriter> HttpResponse::start_sse() {
  if (!sse_) sse_ = std::make_shared<SseWriter>(sse_max_queued_bytes_);
  status = 200;
  content_type = "text/event-stream";
  return sse_;
}

struct HttpServer::Impl {
  HttpServerOptions opt;
  GuardedServer svr;
  std::thread thread;
  std::atomic<bool> started{false};
  std::atomic<bool> listen_done{false};
  int port = 0;
  int listen_fd = -1;
  std::mutex stop_mu;
  std::string late_routes;              // routes added after start, reported as an error
  std::vector<std::regex> public_gets;  // GET routes served without the token

  bool is_public(const httplib::Request& q) const {
    if (q.method != "GET" && q.method != "HEAD") return false;
    for (const auto& re : public_gets)
      if (std::regex_match(q.path, re)) return true;
    return false;
  }

  std::mutex streams_mu;
  std::vector<std::weak_ptr<SseWriter>> streams;

  // Log lines about clients (refused tokens, dropped streams): at most a few
  // per second; the rest are counted.
  std::mutex log_mu;
  std::chrono::steady_clock::time_point log_window{};
  int logged_in_window = 0;
  size_t unlogged = 0;

  StreamLoop loop;

  explicit Impl(HttpServerOptions o)
      : opt(std::move(o)),
        svr(opt),
        loop(StreamLoopOptions{opt.sse_heartbeat_ms, opt.write_timeout_ms,
                               [this](const std::string& line) { log_limited(line); }}) {
    svr.use_stream_loop(&loop);
  }

  // Refused requests and dropped streams: a flood of them cannot flood the log.
  void log_limited(const std::string& what) {
    std::lock_guard lock(log_mu);
    const auto now = std::chrono::steady_clock::now();
    if (now - log_window > std::chrono::seconds(1)) {
      if (unlogged > 0) std::cerr << "kaisha http: " << unlogged << " more lines like these (not logged)\n";
      log_window = now;
      logged_in_window = 0;
      unlogged = 0;
    }
    if (++logged_in_window > 5) {
      ++unlogged;
      return;
    }
    std::cerr << "kaisha http: " << what << "\n";
  }

  void track(const std::shared_ptr<SseWriter>& w) {
    std::lock_guard lock(streams_mu);
    streams.erase(std::remove_if(streams.begin(), streams.end(), [](auto& p) { return p.expired(); }), streams.end());
    streams.push_back(w);
  }

  HttpRequest convert(const httplib::Request& q) const {
    HttpRequest r;
    r.method = q.method;
    r.path = q.path;
    for (const auto& [k, v] : q.headers) r.headers[ascii_lower(k)] = v;
    for (const auto& [k, v] : q.params) r.query[k] = v;
    for (size_t i = 1; i < q.matches.size(); ++i) r.path_params.push_back(q.matches[i].str());
    r.body = q.body;
    r.remote_addr = q.remote_addr;
    // Only a checked token tells clients apart: without one, any header value
    // would do, and a client could be a new one with every request.
    r.client = client_key(q.remote_addr, opt.bearer_token.empty() ? "" : q.get_header_value("Authorization"));
    return r;
  }

  void write_back(HttpResponse& out, httplib::Response& res) {
    res.status = out.status;
    for (const auto& [k, v] : out.headers) res.set_header(k, v);
    const auto& w = out.sse();
    if (!w) {
      // An error status without a body is left for the error handler to fill.
      if (out.status < 400 || !out.body.empty()) set_uncompressed(res, std::move(out.body), out.content_type);
      return;
    }
    track(w);
    res.set_header("Cache-Control", "no-cache");
    // The stream loop ends the response, then closes the connection.
    res.set_header("Connection", "close");
    res.set_chunked_content_provider(
        "text/event-stream",
        [w](size_t, httplib::DataSink&) {
          // The headers are written. Stop cpp-httplib here: the stream loop
          // writes the chunks from now on, and this thread is free again.
          if (tl_connection) tl_connection->stream = w;
          return false;
        },
        [w](bool) {
          // Not handed over (a HEAD request, or the headers could not be written).
          if (!tl_connection || tl_connection->stream != w) w->mark_ended(true);
        });
  }

  void mount(const std::string& method, const std::string& pattern, HttpHandler handler) {
    auto h = [this, handler = std::move(handler)](const httplib::Request& q, httplib::Response& res) {
      HttpRequest req = convert(q);
      HttpResponse out(opt.sse_max_queued_bytes);
      try {
        handler(req, out);
      } catch (const std::exception& e) {
        std::cerr << "kaisha http: handler for " << req.method << " " << req.path << " threw: " << e.what() << "\n";
        if (out.sse()) out.sse()->mark_ended(false);
        out = HttpResponse{};
        out.set_error(500, "internal", "internal error while handling " + req.method + " " + req.path);
      } catch (...) {
        if (out.sse()) out.sse()->mark_ended(false);
        out = HttpResponse{};
        out.set_error(500, "internal", "internal error while handling " + req.method + " " + req.path);
      }
      write_back(out, res);
    };
    if (method == "GET")
      svr.Get(pattern, h);
    else if (method == "POST")
      svr.Post(pattern, h);
    else if (method == "PUT")
      svr.Put(pattern, h);
    else if (method == "PATCH")
      svr.Patch(pattern, h);
    else if (method == "DELETE")
      svr.Delete(pattern, h);
    else if (method == "OPTIONS")
      svr.Options(pattern, h);
    else
      late_routes += " unsupported method " + method + " for " + pattern + ";";
  }
};

HttpServer::HttpServer(HttpServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  auto& svr = impl_->svr;
  const auto& o = impl_->opt;
  svr.new_task_queue = [impl = impl_.get()] { return new ConnectionThreads(impl->svr.limiter()); };
  svr.set_keep_alive_max_count(100000);
  // Reads, idle waits and writes are bounded by ConnectionStream; these only
  // bound what cpp-httplib still does on its own.
  svr.set_keep_alive_timeout(std::max<int64_t>(1, o.keep_alive_timeout_ms / 1000));
  svr.set_read_timeout(us(o.body_timeout_ms));
  svr.set_write_timeout(us(o.write_timeout_ms));
  svr.set_payload_max_length(o.max_body_bytes);
  svr.set_tcp_nodelay(true);
  // Without SO_REUSEPORT (httplib's default sets it) a second server on a
  // busy port is an error instead of silently sharing it.
  svr.set_socket_options([impl = impl_.get()](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    impl->listen_fd = sock;
  });
  svr.set_pre_routing_handler([impl = impl_.get()](const httplib::Request& q, httplib::Response& res) {
    // Refused before the body is read; the connection closes after the
    // answer so the unread body is not taken for a request.
    if (Status framing = check_request_framing(q.get_header_value("Content-Length"),
                                               q.get_header_value("Transfer-Encoding"), impl->opt.max_body_bytes);
        !framing.ok()) {
      close_after_response();
      HttpResponse out;
      const std::string& why = framing.error().code;
      const int status = why == "too_large" ? 413 : why == "length_required" ? 411 : 400;
      out.set_error(status, status_word(status), framing.error().message);
      impl->write_back(out, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string& token = impl->opt.bearer_token;
    const std::string authorization = q.get_header_value("Authorization");
    if (token.empty() || bearer_matches(authorization, token) || impl->is_public(q))
      return httplib::Server::HandlerResponse::Unhandled;
    close_after_response();
    impl->log_limited("refused " + printable(q.method) + " " + printable(q.path) + " from " + q.remote_addr + ": " +
                      token_refusal_reason(authorization));
    HttpResponse out;
    out.set_error(401, "unauthorized", "missing or wrong bearer token (send 'Authorization: Bearer <token>')");
    out.headers["WWW-Authenticate"] = "Bearer";
    impl->write_back(out, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  svr.set_error_handler(
      httplib::Server::HandlerWithResponse([impl = impl_.get()](const httplib::Request& q, httplib::Response& res) {
        // A route or the token check already answered (set_uncompressed leaves
        // res.body empty but always sets the Content-Type).
        if (!res.body.empty() || res.has_header("Content-Type")) return httplib::Server::HandlerResponse::Unhandled;
        std::string msg;
        switch (res.status) {
          case 404:
            msg = "no route for " + q.method + " " + q.path;
            break;
          case 413:
            msg = "request body too large (limit " + std::to_string(impl->opt.max_body_bytes) + " bytes)";
            break;
          case 400:
            msg = "malformed HTTP request";
            break;
          default:
            msg = "HTTP " + std::to_string(res.status) + " for " + q.method + " " + q.path;
        }
        HttpResponse out;
        out.set_error(res.status, status_word(res.status), msg);
        set_uncompressed(res, std::move(out.body), out.content_type);
        return httplib::Server::HandlerResponse::Handled;
      }));
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(const std::string& method, const std::string& pattern, HttpHandler handler) {
  if (impl_->started) {
    impl_->late_routes += " " + method + " " + pattern + " added after start;";
    return;
  }
  impl_->mount(method, pattern, std::move(handler));
}

void HttpServer::route_public_get(const std::string& pattern, HttpHandler handler) {
  if (impl_->started) {
    impl_->late_routes += " GET " + pattern + " added after start;";
    return;
  }
  impl_->public_gets.emplace_back(pattern);
  impl_->mount("GET", pattern, std::move(handler));
}

Result<int> HttpServer::start() {
  auto& o = impl_->opt;
  if (impl_->started.exchange(true)) return Error{"http", "HTTP server already started"};
  if (!impl_->late_routes.empty()) return Error{"http", "bad routes:" + impl_->late_routes};
  const bool tls = !o.tls_cert_file.empty() || !o.tls_key_file.empty();
  if (auto st = check_bind_policy(o.host, o.bearer_token, tls || o.behind_tls_proxy); !st) return st.error();
  if (tls) {
    auto ctx = make_tls_context(o.tls_cert_file, o.tls_key_file);
    if (!ctx) return ctx.error();
    impl_->svr.use_tls(*ctx);
    signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(): a peer that hung up must not kill us
  }
  raise_descriptor_limit(o.max_connections);
  if (auto st = impl_->loop.start(); !st) return st.error();
  std::string bind_host = o.host == "localhost" ? "127.0.0.1" : o.host;
  if (bind_host.size() > 2 && bind_host.front() == '[') bind_host = bind_host.substr(1, bind_host.size() - 2);
  int bound = -1;
  if (o.port == 0)
    bound = impl_->svr.bind_to_any_port(bind_host);
  else if (impl_->svr.bind_to_port(bind_host, o.port))
    bound = o.port;
  if (bound <= 0)
    return Error{"bind", "cannot listen on " + o.host + ":" + std::to_string(o.port) + ": " + std::strerror(errno)};
  impl_->port = bound;
  // The packaged httplib listens with a backlog of 5; many clients arriving at
  // once would be refused. A second listen() on the bound socket raises it.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, 1024);
  impl_->thread = std::thread([impl = impl_.get()] {
    impl->svr.listen_after_bind();
    impl->listen_done = true;
  });
  // stop() is a no-op until the accept loop runs, so wait for it.
  for (int i = 0; i < 1000 && !impl_->svr.is_running() && !impl_->listen_done; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return bound;
}

void HttpServer::stop() {
  std::lock_guard lock(impl_->stop_mu);
  {
    std::lock_guard sl(impl_->streams_mu);
    for (auto& weak : impl_->streams)
      if (auto w = weak.lock()) w->abort();
    impl_->streams.clear();
  }
  impl_->loop.stop();  // closes the streams it carries; later ones are refused
  if (impl_->thread.joinable()) {
    while (!impl_->listen_done) {
      impl_->svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    impl_->thread.join();
  }
}

int HttpServer::port() const { return impl_->port; }
const HttpServerOptions& HttpServer::options() const { return impl_->opt; }

std::string HttpServer::base_url() const {
  std::string h = impl_->opt.host;
  if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
  return (impl_->svr.tls() ? "https://" : "http://") + h + ":" + std::to_string(impl_->port);
}

size_t HttpServer::open_connections() const { return impl_->svr.limiter().total(); }
size_t HttpServer::open_streams() const { return impl_->loop.streams(); }

bool HttpServer::loopback_only() const { return is_loopback_host(impl_->opt.host); }

Status HttpServer::check_origin(const HttpRequest& request) const {
  return check_origin_and_host(request.header("host"), request.header("origin"), loopback_only(),
                               impl_->opt.allowed_origins);
}

}  // namespace kaisha::protocols
