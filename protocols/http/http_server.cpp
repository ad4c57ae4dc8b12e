#include "protocols/http/http_server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "protocols/http/bind_policy.hpp"
#include "protocols/http/origin_check.hpp"

namespace kaisha::protocols {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

const char* status_word(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 408: return "timeout";
    case 413: return "too_large";
    case 414: return "uri_too_long";
    case 415: return "unsupported_media_type";
    default: return status >= 500 ? "internal" : "error";
  }
}

std::chrono::microseconds us(int64_t ms) { return std::chrono::milliseconds(std::max<int64_t>(ms, 1)); }

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
  auto it = headers.find(lower(name));
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
  if (!sse_) sse_ = std::make_shared<SseWriter>();
  status = 200;
  content_type = "text/event-stream";
  return sse_;
}

struct HttpServer::Impl {
  HttpServerOptions opt;
  httplib::Server svr;
  std::thread thread;
  std::atomic<bool> started{false};
  std::atomic<bool> listen_done{false};
  int port = 0;
  int listen_fd = -1;
  std::mutex stop_mu;
  std::string late_routes;  // routes added after start, reported as an error

  std::mutex streams_mu;
  std::vector<std::weak_ptr<SseWriter>> streams;

  explicit Impl(HttpServerOptions o) : opt(std::move(o)) {}

  void track(const std::shared_ptr<SseWriter>& w) {
    std::lock_guard lock(streams_mu);
    streams.erase(std::remove_if(streams.begin(), streams.end(), [](auto& p) { return p.expired(); }),
                  streams.end());
    streams.push_back(w);
  }

  static HttpRequest convert(const httplib::Request& q) {
    HttpRequest r;
    r.method = q.method;
    r.path = q.path;
    for (const auto& [k, v] : q.headers) r.headers[lower(k)] = v;
    for (const auto& [k, v] : q.params) r.query[k] = v;
    for (size_t i = 1; i < q.matches.size(); ++i) r.path_params.push_back(q.matches[i].str());
    r.body = q.body;
    r.remote_addr = q.remote_addr;
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
    int64_t beat = std::max<int64_t>(opt.sse_heartbeat_ms, 10);
    res.set_chunked_content_provider(
        "text/event-stream",
        [w, beat](size_t, httplib::DataSink& sink) {
          bool finished = false;
          std::string text = w->take(beat, finished);
          if (text.empty() && !finished) text = ":\n\n";  // heartbeat: a dead peer fails this write
          if (!text.empty() && !sink.write(text.data(), text.size())) {
            w->mark_ended(true);
            return false;
          }
          if (finished) sink.done();
          return true;
        },
        [w](bool success) { w->mark_ended(!success); });
  }

  void mount(const std::string& method, const std::string& pattern, HttpHandler handler) {
    auto h = [this, handler = std::move(handler)](const httplib::Request& q, httplib::Response& res) {
      HttpRequest req = convert(q);
      HttpResponse out;
      try {
        handler(req, out);
      } catch (const std::exception& e) {
        std::cerr << "kaisha http: handler for " << req.method << " " << req.path << " threw: " << e.what()
                  << "\n";
        out = HttpResponse{};
        out.set_error(500, "internal", "internal error while handling " + req.method + " " + req.path);
      } catch (...) {
        out = HttpResponse{};
        out.set_error(500, "internal", "internal error while handling " + req.method + " " + req.path);
      }
      write_back(out, res);
    };
    if (method == "GET") svr.Get(pattern, h);
    else if (method == "POST") svr.Post(pattern, h);
    else if (method == "PUT") svr.Put(pattern, h);
    else if (method == "PATCH") svr.Patch(pattern, h);
    else if (method == "DELETE") svr.Delete(pattern, h);
    else if (method == "OPTIONS") svr.Options(pattern, h);
    else late_routes += " unsupported method " + method + " for " + pattern + ";";
  }
};

HttpServer::HttpServer(HttpServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  auto& svr = impl_->svr;
  const auto& o = impl_->opt;
  int threads = std::max(2, o.threads);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_keep_alive_max_count(100000);
  svr.set_keep_alive_timeout(std::max<int64_t>(1, o.keep_alive_timeout_ms / 1000));
  svr.set_read_timeout(us(o.read_timeout_ms));
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
    const std::string& token = impl->opt.bearer_token;
    if (token.empty() || bearer_matches(q.get_header_value("Authorization"), token))
      return httplib::Server::HandlerResponse::Unhandled;
    HttpResponse out;
    out.set_error(401, "unauthorized", "missing or wrong bearer token (send 'Authorization: Bearer <token>')");
    out.headers["WWW-Authenticate"] = "Bearer";
    impl->write_back(out, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  svr.set_error_handler(httplib::Server::HandlerWithResponse([impl = impl_.get()](const httplib::Request& q, httplib::Response& res) {
    // A route or the token check already answered (set_uncompressed leaves
    // res.body empty but always sets the Content-Type).
    if (!res.body.empty() || res.has_header("Content-Type")) return httplib::Server::HandlerResponse::Unhandled;
    std::string msg;
    switch (res.status) {
      case 404: msg = "no route for " + q.method + " " + q.path; break;
      case 413:
        msg = "request body too large (limit " + std::to_string(impl->opt.max_body_bytes) + " bytes)";
        break;
      case 400: msg = "malformed HTTP request"; break;
      default: msg = "HTTP " + std::to_string(res.status) + " for " + q.method + " " + q.path;
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

Result<int> HttpServer::start() {
  auto& o = impl_->opt;
  if (impl_->started.exchange(true)) return Error{"http", "HTTP server already started"};
  if (!impl_->late_routes.empty()) return Error{"http", "bad routes:" + impl_->late_routes};
  if (auto st = check_bind_policy(o.host, o.bearer_token); !st) return st.error();
  std::string bind_host = o.host == "localhost" ? "127.0.0.1" : o.host;
  if (bind_host.size() > 2 && bind_host.front() == '[') bind_host = bind_host.substr(1, bind_host.size() - 2);
  int bound = -1;
  if (o.port == 0) bound = impl_->svr.bind_to_any_port(bind_host);
  else if (impl_->svr.bind_to_port(bind_host, o.port)) bound = o.port;
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
  return "http://" + h + ":" + std::to_string(impl_->port);
}

bool HttpServer::loopback_only() const { return is_loopback_host(impl_->opt.host); }

Status HttpServer::check_origin(const HttpRequest& request) const {
  return check_origin_and_host(request.header("host"), request.header("origin"), loopback_only(),
                               impl_->opt.allowed_origins);
}

}  // namespace kaisha::protocols
