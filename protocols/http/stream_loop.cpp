#include "protocols/http/stream_loop.hpp"

#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kaisha::protocols {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kWakeId = 0;  // epoll data of the eventfd; streams count from 1
constexpr uint32_t kInterest = EPOLLIN | EPOLLRDHUP;

// One HTTP/1.1 chunk carrying `text`.
void append_chunk(std::string& out, const std::string& text) {
  char size[20];
  std::snprintf(size, sizeof(size), "%zx\r\n", text.size());
  out.append(size).append(text).append("\r\n");
}

// Why a stream's connection is closed.
enum class End {
  finished,      // close() was called and everything was written
  disconnected,  // the client closed, or a read or write failed
  overflowed,    // the writer's queue overflowed (a slow reader)
  stalled,       // the client read nothing for write_timeout_ms
  ended,         // the writer was aborted or ended elsewhere
  stopping,      // the server stops
};

}  // namespace

struct StreamLoop::Impl : std::enable_shared_from_this<Impl> {
  struct Incoming {
    uint64_t id;
    int fd;
    SSL* ssl;
    std::shared_ptr<SseWriter> writer;
    std::string peer;
    std::function<void()> released;
  };
  struct Stream {
    int fd;
    SSL* ssl;
    std::shared_ptr<SseWriter> writer;
    std::string peer;
    std::function<void()> released;
    std::string out;  // chunk-framed bytes not yet written, from `off`
    size_t off = 0;
    bool finishing = false;           // `out` ends with the last chunk
    bool want_write = false;          // EPOLLOUT is in the interest set
    Clock::time_point last_progress;  // the last byte written, or data queued on an idle stream
  };

  explicit Impl(StreamLoopOptions o) : opt(std::move(o)) {
    opt.heartbeat_ms = std::max<int64_t>(opt.heartbeat_ms, 10);
    opt.write_timeout_ms = std::max<int64_t>(opt.write_timeout_ms, 10);
  }
  ~Impl() {
    if (epfd >= 0) ::close(epfd);
    if (evfd >= 0) ::close(evfd);
  }

  StreamLoopOptions opt;
  int epfd = -1;
  int evfd = -1;
  std::thread thread;
  std::atomic<size_t> count{0};

  // Shared with adopting and sending threads; bounded: one incoming entry
  // per adopted connection, and at most a few ready entries per stream (a
  // writer wakes the loop again only after the loop took its queue, and once
  // more when it ends).
  std::mutex mu;
  std::vector<Incoming> incoming;
  std::vector<uint64_t> ready;
  bool running = false;
  bool stopping = false;
  uint64_t next_id = kWakeId + 1;

  // The loop thread's own.
  std::unordered_map<uint64_t, Stream> streams;

  void log(const std::string& line) const {
    if (opt.log)
      opt.log(line);
    else
      std::cerr << "kaisha http: " << line << "\n";
  }

  void poke() const {
    const uint64_t one = 1;
    (void)!::write(evfd, &one, sizeof(one));  // EAGAIN: a wake-up is pending anyway
  }

  void notify(uint64_t id) {
    {
      std::lock_guard lock(mu);
      ready.push_back(id);
    }
    poke();
  }

  // ---- the loop thread ----

  void run() {
    // Heartbeats and write timeouts are checked every quarter of the shorter one.
    const int tick =
        static_cast<int>(std::clamp<int64_t>(std::min(opt.heartbeat_ms, opt.write_timeout_ms) / 4, 5, 1000));
    auto last_sweep = Clock::now();
    epoll_event events[256];
    for (;;) {
      int n = ::epoll_wait(epfd, events, 256, tick);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.u64 == kWakeId) {
          uint64_t v;
          (void)!::read(evfd, &v, sizeof(v));
        } else {
          on_io(events[i].data.u64, events[i].events);
        }
      }
      std::vector<Incoming> in;
      std::vector<uint64_t> rd;
      bool stop;
      {
        std::lock_guard lock(mu);
        in.swap(incoming);
        rd.swap(ready);
        stop = stopping;
      }
      for (auto& x : in) add(std::move(x));  // also when stopping: they are closed below
      if (stop) break;
      for (uint64_t id : rd)
        if (auto it = streams.find(id); it != streams.end()) pump(it);
      if (Clock::now() - last_sweep >= std::chrono::milliseconds(tick)) {
        sweep();
        last_sweep = Clock::now();
      }
    }
    while (!streams.empty()) close_stream(streams.begin(), End::stopping);
  }

  void add(Incoming x) {
    epoll_event ev{};
    ev.events = kInterest;
    ev.data.u64 = x.id;
    if (::epoll_ctl(epfd, EPOLL_CTL_ADD, x.fd, &ev) != 0) {
      log("cannot watch the event stream to " + x.peer + ": " + std::strerror(errno) + "; closing it");
      if (x.ssl) SSL_free(x.ssl);
      ::close(x.fd);
      --count;
      x.writer->mark_ended(true);
      if (x.released) x.released();
      return;
    }
    auto [it, _] = streams.emplace(x.id, Stream{x.fd,
                                                x.ssl,
                                                std::move(x.writer),
                                                std::move(x.peer),
                                                std::move(x.released),
                                                {},
                                                0,
                                                false,
                                                false,
                                                Clock::now()});
    std::weak_ptr<Impl> weak = shared_from_this();
    it->second.writer->attach([weak, id = x.id] {
      if (auto self = weak.lock()) self->notify(id);
    });
    pump(it);
  }

  using Iter = std::unordered_map<uint64_t, Stream>::iterator;

  void on_io(uint64_t id, uint32_t ev) {
    auto it = streams.find(id);
    if (it == streams.end()) return;
    if (ev & (EPOLLERR | EPOLLHUP)) return close_stream(it, End::disconnected);
    if ((ev & (EPOLLIN | EPOLLRDHUP)) && !drain_input(it->second)) return close_stream(it, End::disconnected);
    pump(it);
  }

  // Reads and discards what the client sends (nothing is expected on an
  // event stream); false once it closed its end or the connection failed.
  static bool drain_input(Stream& s) {
    char buf[4096];
    for (int i = 0; i < 4; ++i) {
      if (s.ssl) {
        int n = SSL_read(s.ssl, buf, sizeof(buf));
        if (n > 0) continue;
        int e = SSL_get_error(s.ssl, n);
        ERR_clear_error();
        return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
      }
      ssize_t n = ::recv(s.fd, buf, sizeof(buf), 0);
      if (n > 0) continue;
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;  // more may wait: level-triggered, we are called again
  }

  // Bytes written (> 0), 0 when the socket would block, -1 on failure.
  static ssize_t write_some(Stream& s) {
    const char* p = s.out.data() + s.off;
    const size_t len = s.out.size() - s.off;
    if (s.ssl) {
      int n = SSL_write(s.ssl, p, static_cast<int>(std::min<size_t>(len, 1u << 30)));
      if (n > 0) return n;
      int e = SSL_get_error(s.ssl, n);
      ERR_clear_error();
      return e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ ? 0 : -1;
    }
    for (;;) {
      ssize_t n = ::send(s.fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) return n;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
  }

  void want_write(Stream& s, uint64_t id, bool on) {
    if (s.want_write == on) return;
    epoll_event ev{};
    ev.events = kInterest | (on ? EPOLLOUT : 0u);
    ev.data.u64 = id;
    if (::epoll_ctl(epfd, EPOLL_CTL_MOD, s.fd, &ev) == 0) s.want_write = on;
  }

  // Writes what is pending and what the writer queued, until the socket
  // would block or nothing is left.
  void pump(Iter it) {
    Stream& s = it->second;
    for (;;) {
      if (s.off == s.out.size()) {
        s.out.clear();
        s.off = 0;
        if (s.finishing) return close_stream(it, End::finished);
        SseWriter::Batch b = s.writer->take();
        if (b.ended) return close_stream(it, s.writer->overflowed() ? End::overflowed : End::ended);
        if (!b.text.empty()) append_chunk(s.out, b.text);
        if (b.finish) {
          s.out.append("0\r\n\r\n");
          s.finishing = true;
        }
        if (s.out.empty()) return want_write(s, it->first, false);
        s.last_progress = Clock::now();
      } else if (s.writer->ended()) {
        return close_stream(it, s.writer->overflowed() ? End::overflowed : End::ended);
      }
      ssize_t n = write_some(s);
      if (n < 0) return close_stream(it, End::disconnected);
      if (n == 0) return want_write(s, it->first, true);
      s.off += static_cast<size_t>(n);
      s.last_progress = Clock::now();
    }
  }

  // Heartbeats on idle streams; drops streams whose client stopped reading.
  void sweep() {
    const auto now = Clock::now();
    std::vector<uint64_t> stalled, idle;
    for (auto& [id, s] : streams) {
      if (s.off < s.out.size()) {
        if (now - s.last_progress > std::chrono::milliseconds(opt.write_timeout_ms)) stalled.push_back(id);
      } else if (now - s.last_progress >= std::chrono::milliseconds(opt.heartbeat_ms)) {
        idle.push_back(id);
      }
    }
    for (uint64_t id : stalled)
      if (auto it = streams.find(id); it != streams.end()) close_stream(it, End::stalled);
    for (uint64_t id : idle) {
      auto it = streams.find(id);
      if (it == streams.end()) continue;
      // A comment line: a client that went away silently fails this write.
      append_chunk(it->second.out, ":\n\n");
      it->second.last_progress = now;
      pump(it);
    }
  }

  void close_stream(Iter it, End why) {
    Stream s = std::move(it->second);
    streams.erase(it);
    --count;
    if (why == End::overflowed)
      log("dropped the event stream to " + s.peer + ": it reads more slowly than events arrive (its queue is full)");
    else if (why == End::stalled)
      log("dropped the event stream to " + s.peer + ": it read nothing for " + std::to_string(opt.write_timeout_ms) +
          " ms");
    ::epoll_ctl(epfd, EPOLL_CTL_DEL, s.fd, nullptr);
    if (s.ssl) {
      if (why == End::finished) SSL_shutdown(s.ssl);  // best effort, non-blocking
      SSL_free(s.ssl);
      ERR_clear_error();
    }
    ::shutdown(s.fd, SHUT_RDWR);
    ::close(s.fd);
    if (why == End::stopping)
      s.writer->abort();
    else
      s.writer->mark_ended(why != End::finished);
    if (s.released) s.released();
  }
};

StreamLoop::StreamLoop(StreamLoopOptions options) : impl_(std::make_shared<Impl>(std::move(options))) {}

StreamLoop::~StreamLoop() { stop(); }

Status StreamLoop::start() {
  auto& i = *impl_;
  std::lock_guard lock(i.mu);
  if (i.running || i.stopping) return Error{"http", "the stream loop was already started"};
  i.epfd = ::epoll_create1(EPOLL_CLOEXEC);
  i.evfd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (i.epfd < 0 || i.evfd < 0)
    return Error{"http", std::string("cannot create the event stream loop: ") + std::strerror(errno)};
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeId;
  if (::epoll_ctl(i.epfd, EPOLL_CTL_ADD, i.evfd, &ev) != 0)
    return Error{"http", std::string("cannot create the event stream loop: ") + std::strerror(errno)};
  try {
    i.thread = std::thread([self = impl_.get()] { self->run(); });
  } catch (const std::system_error& e) {
    return Error{"http", std::string("cannot start the event stream loop's thread: ") + e.what()};
  }
  i.running = true;
  return {};
}

bool StreamLoop::adopt(int fd, SSL* ssl, std::shared_ptr<SseWriter> writer, std::string peer,
                       std::function<void()> released) {
  auto& i = *impl_;
  {
    std::lock_guard lock(i.mu);
    if (!i.running || i.stopping) return false;
    i.incoming.push_back({i.next_id++, fd, ssl, std::move(writer), std::move(peer), std::move(released)});
    ++i.count;
  }
  i.poke();
  return true;
}

void StreamLoop::stop() {
  auto& i = *impl_;
  {
    std::lock_guard lock(i.mu);
    if (!i.running || i.stopping) return;
    i.stopping = true;
  }
  i.poke();
  if (i.thread.joinable()) i.thread.join();
}

size_t StreamLoop::streams() const { return impl_->count.load(); }

}  // namespace kaisha::protocols
