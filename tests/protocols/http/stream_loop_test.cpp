// Open event streams are carried by the server's stream loop, not by threads:
// more open streams than a thread pool would have, from 127.0.0.2-9, leave
// the process's thread count where it was and 127.0.0.1 still answered; the
// events of each stream arrive in order; a client that goes away, or reads
// too slowly, is noticed and its socket, slot and subscription released.
#include <dirent.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "protocols/http/http_server.hpp"
#include "tests/protocols/http/loopback_client.hpp"

namespace kaisha::protocols {
namespace {

using namespace std::chrono_literals;
using kaisha::testing::connect_from;
using kaisha::testing::read_until_close;
using kaisha::testing::request_from;
using kaisha::testing::send_all;
using kaisha::testing::status_of;

// Entries of a /proc/self directory: "task" (threads) or "fd" (descriptors).
size_t count_entries(const char* dir) {
  size_t n = 0;
  if (DIR* d = ::opendir(dir)) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}
size_t threads() { return count_entries("/proc/self/task"); }
size_t descriptors() { return count_entries("/proc/self/fd"); }

// Polls `done` every 10 ms for up to `wait`.
template <class Done>
bool eventually(Done done, std::chrono::milliseconds wait = 30s) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// The body of a chunked response; `complete` says whether the last chunk came.
std::string dechunk(const std::string& response, bool* complete) {
  *complete = false;
  size_t at = response.find("\r\n\r\n");
  if (at == std::string::npos) return "";
  at += 4;
  std::string body;
  for (;;) {
    size_t eol = response.find("\r\n", at);
    if (eol == std::string::npos) return body;
    size_t size = std::stoul(response.substr(at, eol - at), nullptr, 16);
    if (size == 0) {
      *complete = true;
      return body;
    }
    if (eol + 2 + size + 2 > response.size()) return body;
    body += response.substr(eol + 2, size);
    at = eol + 2 + size + 2;
  }
}

void need_descriptors(rlim_t n) {
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < n && rl.rlim_max >= n) {
    rl.rlim_cur = n;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

// A server with GET /events (an event stream the test feeds) and GET /ping.
struct StreamServer {
  explicit StreamServer(HttpServerOptions o = {}) : server(o) {
    server.route("GET", "/ping", [](const HttpRequest&, HttpResponse& r) { r.set_json(200, json{{"ok", true}}); });
    server.route("GET", "/events", [this](const HttpRequest&, HttpResponse& r) {
      auto w = r.start_sse();
      w->on_close([this] { ++closed; });
      std::lock_guard lock(mu);
      writers.push_back(w);
    });
  }
  size_t opened() {
    std::lock_guard lock(mu);
    return writers.size();
  }
  std::vector<std::shared_ptr<SseWriter>> all() {
    std::lock_guard lock(mu);
    return writers;
  }

  HttpServer server;
  std::mutex mu;
  std::vector<std::shared_ptr<SseWriter>> writers;
  std::atomic<int> closed{0};
};

int open_stream(const std::string& source, int port) {
  int fd = connect_from(source, port);
  if (fd >= 0 && !send_all(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Before the stream loop, each open stream kept the thread of its connection:
// 600 streams, 600 threads (and with a fixed pool of 128, every other request
// waited). Now they cost no thread.
TEST(StreamLoop, SixHundredOpenStreamsHoldNoThreadAndStillDeliverInOrder) {
  need_descriptors(4096);
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < 1500) GTEST_SKIP() << "needs 1500 file descriptors, the hard limit is " << rl.rlim_max;

  StreamServer s;
  ASSERT_TRUE(s.server.start().ok());
  // Connection threads of earlier tests may still be exiting.
  eventually([] { return threads() <= 8; }, 10s);
  const size_t before = threads();
  constexpr int kStreams = 600;
  std::vector<int> clients;
  for (int i = 0; i < kStreams; ++i) {
    int fd = open_stream("127.0.0." + std::to_string(2 + i % 8), s.server.port());
    ASSERT_GE(fd, 0) << i;
    clients.push_back(fd);
  }
  ASSERT_TRUE(eventually([&] { return s.server.open_streams() == kStreams; })) << s.server.open_streams();
  // The connection threads that wrote the headers have ended.
  const bool settled = eventually([&] { return threads() <= before + 20; });
  const size_t held = threads();
  std::printf("[ measured ] %d open streams: process threads %zu (before them: %zu)\n", kStreams, held, before);
  EXPECT_TRUE(settled) << held << " threads with " << kStreams << " open streams, " << before << " before";

  const std::string answer = request_from("127.0.0.1", s.server.port(), "GET", "/ping", "", "", 10s);
  EXPECT_EQ(status_of(answer), 200) << answer;
  EXPECT_EQ(s.server.open_streams(), static_cast<size_t>(kStreams));

  // Events pushed from another thread, then the end of each stream.
  std::thread producer([&] {
    for (const auto& w : s.all()) {
      for (int n = 0; n < 3; ++n) w->send("{\"n\":" + std::to_string(n) + "}", "message", std::to_string(n));
      w->close();
    }
  });
  producer.join();
  std::string expected;
  for (int n = 0; n < 3; ++n)
    expected += "event: message\nid: " + std::to_string(n) + "\ndata: {\"n\":" + std::to_string(n) + "}\n\n";
  int in_order = 0, reported = 0;
  for (int fd : clients) {
    bool closed = false;
    const std::string response = read_until_close(fd, 10s, &closed);
    ::close(fd);
    bool complete = false;
    const std::string body = dechunk(response, &complete);
    if (status_of(response) == 200 && complete && closed && body == expected)
      ++in_order;
    else if (++reported <= 3)
      ADD_FAILURE() << "a stream received: " << response;
  }
  EXPECT_EQ(in_order, kStreams);
  EXPECT_TRUE(eventually([&] { return s.server.open_connections() == 0; })) << s.server.open_connections();
  EXPECT_EQ(s.closed.load(), kStreams);
}

// A client that goes away mid-stream — while idle, and while events flow —
// is noticed without waiting for a heartbeat: its socket is closed, its
// connection slot freed and the writer's on_close (where producers release
// their subscription) runs. Nothing leaks.
TEST(StreamLoop, AClientThatDisconnectsMidStreamIsCleanedUp) {
  HttpServerOptions o;
  o.sse_heartbeat_ms = 600'000;  // so only the close itself can tell
  StreamServer s(o);
  ASSERT_TRUE(s.server.start().ok());
  const size_t fds_before = descriptors();
  constexpr int kStreams = 40;
  std::vector<int> clients;
  for (int i = 0; i < kStreams; ++i) {
    int fd = open_stream("127.0.0." + std::to_string(2 + i % 8), s.server.port());
    ASSERT_GE(fd, 0);
    clients.push_back(fd);
  }
  ASSERT_TRUE(eventually([&] { return s.server.open_streams() == kStreams; }));
  auto writers = s.all();
  for (auto& w : writers) w->send("first");
  // Half the streams carry a steady flow of events while their clients leave.
  std::atomic<bool> flowing{true};
  std::thread producer([&] {
    while (flowing) {  // slow enough that no queue fills before the clients leave
      for (size_t i = 0; i < writers.size(); i += 2) writers[i]->send(std::string(512, 'x'));
      std::this_thread::sleep_for(1ms);
    }
  });
  for (int fd : clients) ::close(fd);
  const bool cleaned = eventually([&] { return s.closed.load() == kStreams; });
  flowing = false;
  producer.join();
  ASSERT_TRUE(cleaned) << s.closed.load() << " of " << kStreams << " streams noticed";
  EXPECT_TRUE(eventually([&] { return s.server.open_connections() == 0; })) << s.server.open_connections();
  EXPECT_EQ(s.server.open_streams(), 0u);
  for (auto& w : writers) {
    EXPECT_TRUE(w->disconnected());
    EXPECT_FALSE(w->overflowed());
    EXPECT_FALSE(w->send("too late"));
  }
  EXPECT_TRUE(eventually([&] { return descriptors() <= fds_before; }))
      << descriptors() << " descriptors open, " << fds_before << " before the streams";
}

// A client that stops reading while events keep coming is dropped once its
// queue is full, with a log line; the queue never grows past its bound.
TEST(StreamLoop, AReaderTooSlowForItsQueueIsDroppedWithALogLine) {
  HttpServerOptions o;
  o.sse_max_queued_bytes = 64 << 10;
  StreamServer s(o);
  ASSERT_TRUE(s.server.start().ok());
  int fd = open_stream("127.0.0.3", s.server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(eventually([&] { return s.server.open_streams() == 1; }));
  auto w = s.all().front();
  ::testing::internal::CaptureStderr();
  const std::string event(1024, 'y');
  size_t sent = 0;
  // Never read: the kernel's buffers fill, then the writer's queue.
  while (sent < 1'000'000 && w->send(event)) ++sent;
  const bool noticed = eventually([&] { return s.closed.load() == 1; });
  const std::string log = ::testing::internal::GetCapturedStderr();
  ::close(fd);
  EXPECT_LT(sent, 1'000'000u) << "a client that never reads was sent a gigabyte";
  EXPECT_TRUE(w->overflowed());
  EXPECT_TRUE(noticed);
  EXPECT_NE(log.find("dropped the event stream to 127.0.0.3: it reads more slowly than events arrive"),
            std::string::npos)
      << log;
  EXPECT_TRUE(eventually([&] { return s.server.open_connections() == 0; }));
}

// A client that stops reading while the events it was sent still wait (no
// new ones come to overflow its queue) is dropped after the write timeout.
TEST(StreamLoop, AClientThatReadsNothingIsDroppedAfterTheWriteTimeout) {
  HttpServerOptions o;
  o.write_timeout_ms = 300;
  o.sse_max_queued_bytes = 256u << 20;
  StreamServer s(o);
  ASSERT_TRUE(s.server.start().ok());
  int fd = open_stream("127.0.0.4", s.server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(eventually([&] { return s.server.open_streams() == 1; }));
  auto w = s.all().front();
  ::testing::internal::CaptureStderr();
  // More than loopback's socket buffers hold, so some of it waits.
  const std::string event(1u << 20, 'q');
  // (On a loaded machine the write timeout may drop the stream before the
  // last of them is queued: send then says so, and the drop is checked below.)
  for (int i = 0; i < 64 && w->send(event); ++i) {
  }
  const bool dropped = eventually([&] { return s.closed.load() == 1; });
  const std::string log = ::testing::internal::GetCapturedStderr();
  ::close(fd);
  EXPECT_TRUE(dropped);
  EXPECT_FALSE(w->overflowed());
  EXPECT_NE(log.find("dropped the event stream to 127.0.0.4: it read nothing for 300 ms"), std::string::npos) << log;
  EXPECT_TRUE(eventually([&] { return s.server.open_connections() == 0; }));
}

}  // namespace
}  // namespace kaisha::protocols
