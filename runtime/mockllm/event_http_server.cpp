#include "runtime/mockllm/event_http_server.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_map>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kaisha::mockllm {
namespace {

using Clock = std::chrono::steady_clock;

// Hundreds of clients may connect at the same instant (the concurrency
// benchmark: a thousand); the kernel caps this at somaxconn.
constexpr int kListenBacklog = 4096;
constexpr size_t kReadSize = 64u << 10;

const char* reason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

std::string head(const HttpResponse& r, bool keep_alive, const char* framing) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
  if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
  out += framing;
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  out += "\r\n";
  return out;
}

struct Timer {
  Clock::time_point due;
  uint64_t seq;
  std::function<void()> fn;
  bool operator>(const Timer& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

struct Conn {
  int fd = -1;
  uint64_t id = 0;
  HttpRequestParser parser;
  std::string out;  // bytes not yet written
  size_t out_pos = 0;
  bool awaiting = false;  // a request is being answered
  bool keep_alive = true;
  bool http10 = false;
  bool close_after_write = false;
  bool want_write = false;  // EPOLLOUT registered
  bool dead = false;
  bool draining = false;  // inside drain(): don't recurse
};

}  // namespace

struct EventHttpServer::Loop {
  Handler handler;
  HttpRequestParser::Limits limits;
  int ep = -1;
  int listen_fd = -1;
  int wake_fd = -1;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<int> port{0};
  std::mutex stop_mu;  // stop() may be called from several threads at once
  std::atomic<size_t> open_conns{0};
  bool started = false;

  // Owned by the loop thread.
  uint64_t next_id = 1;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns;
  std::vector<uint64_t> graveyard;  // closed, erased after the current event
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
  uint64_t timer_seq = 0;

  Conn* find(uint64_t id) {
    auto it = conns.find(id);
    return it == conns.end() || it->second->dead ? nullptr : it->second.get();
  }

  void close_conn(Conn& c) {
    if (c.dead) return;
    c.dead = true;
    epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    graveyard.push_back(c.id);
    open_conns.fetch_sub(1);
  }

  void update_events(Conn& c, bool want_write) {
    if (c.want_write == want_write) return;
    c.want_write = want_write;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (want_write ? uint32_t{EPOLLOUT} : 0u);
    ev.data.u64 = c.id;
    epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void flush(Conn& c) {
    while (c.out_pos < c.out.size()) {
      const ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_pos += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        update_events(c, true);
        return;
      }
      close_conn(c);  // the peer is gone
      return;
    }
    c.out.clear();
    c.out_pos = 0;
    update_events(c, false);
    if (c.close_after_write) close_conn(c);
  }

  // Queues a complete answer and moves on to the connection's next request.
  void answer(uint64_t id, std::string bytes, bool close_after) {
    Conn* c = find(id);
    if (!c || !c->awaiting) return;
    c->awaiting = false;
    c->out += bytes;
    if (close_after || !c->keep_alive) c->close_after_write = true;
    flush(*c);
    if (!c->dead && !c->draining) drain(*c);
  }

  // Serves the requests already buffered on `c`, one at a time.
  void drain(Conn& c) {
    c.draining = true;
    while (!c.dead && !c.awaiting && !c.close_after_write) {
      HttpRequest req;
      const auto state = c.parser.next(req);
      if (state == HttpRequestParser::State::need_more) {
        if (c.parser.take_continue()) {
          c.out += "HTTP/1.1 100 Continue\r\n\r\n";
          flush(c);
        }
        break;
      }
      if (state == HttpRequestParser::State::error) {
        HttpResponse r{c.parser.error_status(), "text/plain", {}, "bad request: " + c.parser.error_message() + "\n"};
        c.out += head(r, false, ("Content-Length: " + std::to_string(r.body.size()) + "\r\n").c_str()) + r.body;
        c.close_after_write = true;
        flush(c);
        break;
      }
      c.awaiting = true;
      c.keep_alive = req.keep_alive;
      c.http10 = req.minor_version == 0;
      const Reply reply(this, c.id);
      try {
        handler(req, reply);
      } catch (const std::exception& e) {
        reply.send({500, "text/plain", {}, std::string("handler failed: ") + e.what() + "\n"});
      } catch (...) {
        reply.send({500, "text/plain", {}, "handler failed\n"});
      }
    }
    c.draining = false;
  }

  void on_readable(Conn& c) {
    char buf[kReadSize];
    while (true) {
      const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n > 0) {
        c.parser.feed(std::string_view(buf, static_cast<size_t>(n)));
        if (static_cast<size_t>(n) < sizeof buf) break;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      close_conn(c);  // 0: the client closed; <0: reset
      return;
    }
    drain(c);
  }

  void accept_all() {
    while (true) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        // EAGAIN: all taken. EMFILE/ENFILE: retried on the next wakeup.
        return;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Conn>();
      c->fd = fd;
      c->id = next_id++;
      c->parser = HttpRequestParser(limits);
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP;
      ev.data.u64 = c->id;
      if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ::close(fd);
        continue;
      }
      open_conns.fetch_add(1);
      conns.emplace(c->id, std::move(c));
    }
  }

  int timeout_ms() const {
    if (timers.empty()) return -1;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(timers.top().due - Clock::now()).count();
    return static_cast<int>(std::max<int64_t>(0, wait + 1));  // +1: don't wake a hair early and spin
  }

  void run_due_timers() {
    const auto now = Clock::now();
    while (!timers.empty() && timers.top().due <= now) {
      auto fn = std::move(const_cast<Timer&>(timers.top()).fn);
      timers.pop();
      try {
        fn();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kaisha http server: timer threw: %s\n", e.what());
      } catch (...) {
        std::fprintf(stderr, "kaisha http server: timer threw\n");
      }
    }
  }

  void bury() {
    for (uint64_t id : graveyard) conns.erase(id);
    graveyard.clear();
  }

  // Sentinel epoll ids for the two non-connection descriptors.
  static constexpr uint64_t kListenId = 0;
  static constexpr uint64_t kWakeId = ~uint64_t{0};

  void run() {
    epoll_event events[256];
    while (!stopping) {
      const int n = epoll_wait(ep, events, 256, timeout_ms());
      for (int i = 0; i < n && !stopping; ++i) {
        const uint64_t id = events[i].data.u64;
        if (id == kListenId) {
          accept_all();
          continue;
        }
        if (id == kWakeId) continue;
        Conn* c = find(id);
        if (!c) continue;
        if (events[i].events & EPOLLOUT) flush(*c);
        if (!c->dead && (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) on_readable(*c);
      }
      bury();
      if (!stopping) run_due_timers();
      bury();
    }
    for (auto& [id, c] : conns)
      if (!c->dead) ::close(c->fd);
    conns.clear();
    open_conns = 0;
    while (!timers.empty()) timers.pop();
  }
};

void EventHttpServer::Reply::send(const HttpResponse& r) const {
  Conn* c = loop_->find(conn_);
  if (!c) return;
  const std::string framing = "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  loop_->answer(conn_, head(r, c->keep_alive, framing.c_str()) + r.body, false);
}

void EventHttpServer::Reply::send_chunked(const HttpResponse& r, const std::vector<std::string>& chunks) const {
  Conn* c = loop_->find(conn_);
  if (!c) return;
  if (c->http10) {  // no chunked coding in HTTP/1.0: the end of the body is the end of the connection
    std::string out = head(r, false, "");
    for (const auto& ch : chunks) out += ch;
    loop_->answer(conn_, std::move(out), true);
    return;
  }
  std::string out = head(r, c->keep_alive, "Transfer-Encoding: chunked\r\n");
  char size[32];
  for (const auto& ch : chunks) {
    if (ch.empty()) continue;  // an empty chunk would end the body
    std::snprintf(size, sizeof size, "%zx\r\n", ch.size());
    out += size;
    out += ch;
    out += "\r\n";
  }
  out += "0\r\n\r\n";
  loop_->answer(conn_, std::move(out), false);
}

void EventHttpServer::Reply::send_headers_then_close(const HttpResponse& r) const {
  if (!loop_->find(conn_)) return;
  loop_->answer(conn_, head(r, false, "Transfer-Encoding: chunked\r\n"), true);
}

bool EventHttpServer::Reply::open() const { return loop_->find(conn_) != nullptr; }

EventHttpServer::EventHttpServer(Handler handler, HttpRequestParser::Limits limits) : loop_(std::make_unique<Loop>()) {
  loop_->handler = std::move(handler);
  loop_->limits = limits;
}

EventHttpServer::~EventHttpServer() {
  stop();
  if (loop_->ep >= 0) ::close(loop_->ep);
  if (loop_->wake_fd >= 0) ::close(loop_->wake_fd);
  if (loop_->listen_fd >= 0) ::close(loop_->listen_fd);
}

Result<int> EventHttpServer::start(const std::string& host, int port) {
  Loop& l = *loop_;
  const std::string where = host + ":" + std::to_string(port);
  if (l.started) return Error{"http_server", "server on " + where + " already started"};
  if (port < 0 || port > 65535) return Error{"http_server", "cannot listen on " + where + ": port out of range"};
  l.started = true;

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port_s = std::to_string(port);
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port_s.c_str(), &hints, &res); rc != 0)
    return Error{"http_server", "cannot listen on " + where + ": " + gai_strerror(rc)};
  std::string cause = "no address";
  for (addrinfo* a = res; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      cause = std::strerror(errno);
      continue;
    }
    // SO_REUSEADDR (restart without TIME_WAIT trouble) but not SO_REUSEPORT:
    // a second server on a busy port must fail, not share it silently.
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      // A connection is handed to accept() when its request arrives, not at
      // the handshake: one wake-up of this thread per connection, not two.
      int defer_s = 5;
      setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_s, sizeof defer_s);
      l.listen_fd = fd;
      break;
    }
    cause = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(res);
  if (l.listen_fd < 0) return Error{"http_server", "cannot listen on " + where + ": " + cause};

  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(l.listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  l.ep = epoll_create1(EPOLL_CLOEXEC);
  l.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (l.ep < 0 || l.wake_fd < 0) return Error{"http_server", "cannot listen on " + where + ": " + std::strerror(errno)};
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = Loop::kListenId;
  epoll_ctl(l.ep, EPOLL_CTL_ADD, l.listen_fd, &ev);
  ev.data.u64 = Loop::kWakeId;
  epoll_ctl(l.ep, EPOLL_CTL_ADD, l.wake_fd, &ev);
  l.thread = std::thread([&l] { l.run(); });
  // Published last: another thread that sees the port may stop() the server,
  // which reads what the lines above wrote.
  l.port = bound_port;
  return bound_port;
}

void EventHttpServer::stop() {
  Loop& l = *loop_;
  std::lock_guard<std::mutex> lock(l.stop_mu);
  l.stopping = true;
  if (l.wake_fd >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(l.wake_fd, &one, sizeof one);
  }
  if (l.thread.joinable()) l.thread.join();
  if (l.listen_fd >= 0) {
    ::close(l.listen_fd);
    l.listen_fd = -1;
  }
}

void EventHttpServer::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  loop_->timers.push(Timer{Clock::now() + delay, loop_->timer_seq++, std::move(fn)});
}

int EventHttpServer::port() const { return loop_->port; }

size_t EventHttpServer::connections() const { return loop_->open_conns; }

}  // namespace kaisha::mockllm
