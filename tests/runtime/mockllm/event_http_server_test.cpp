// EventHttpServer over real loopback sockets, with a raw socket client so that
// the wire format (framing, keep-alive, closes) is what is asserted.
#include "runtime/mockllm/event_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace kaisha::mockllm {
namespace {

using namespace std::chrono_literals;

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// Reads until `done(buffer)` holds, the peer closes, or 10 s pass.
// Returns the bytes and whether the peer closed.
std::pair<std::string, bool> read_until(int fd, const std::function<bool(const std::string&)>& done) {
  std::string buf;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done(buf) && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char tmp[4096];
    const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return {buf, true};
    buf.append(tmp, static_cast<size_t>(n));
  }
  return {buf, false};
}

// One whole response with a Content-Length body.
bool has_whole_response(const std::string& b) {
  const size_t end = b.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const size_t cl = b.find("Content-Length: ");
  if (cl == std::string::npos || cl > end) return b.find("0\r\n\r\n", end) != std::string::npos;
  return b.size() >= end + 4 + std::stoul(b.substr(cl + 16));
}

std::string body_of(const std::string& response) { return response.substr(response.find("\r\n\r\n") + 4); }

TEST(EventHttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  std::atomic<int> served{0};
  EventHttpServer s([&](const HttpRequest& q, EventHttpServer::Reply r) {
    ++served;
    r.send({200, "text/plain", {{"X-Path", q.path}}, q.method + " " + q.path + " " + q.body});
  });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message;
  const int fd = connect_to(*port);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    const std::string body = "n" + std::to_string(i);
    send_all(fd, "POST /p" + std::to_string(i) + " HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\n\r\n" + body);
    auto [resp, closed] = read_until(fd, has_whole_response);
    ASSERT_FALSE(closed) << resp;
    EXPECT_TRUE(resp.starts_with("HTTP/1.1 200 OK\r\n")) << resp;
    EXPECT_NE(resp.find("Connection: keep-alive\r\n"), std::string::npos) << resp;
    EXPECT_NE(resp.find("X-Path: /p" + std::to_string(i) + "\r\n"), std::string::npos) << resp;
    EXPECT_EQ(body_of(resp), "POST /p" + std::to_string(i) + " " + body);
  }
  EXPECT_EQ(served, 3);
  EXPECT_EQ(s.connections(), 1u);
  ::close(fd);
}

TEST(EventHttpServer, ChunkedResponseAndCloseAfterConnectionClose) {
  EventHttpServer s([](const HttpRequest&, EventHttpServer::Reply r) {
    r.send_chunked({200, "text/event-stream", {}, "ignored"}, {"data: 1\n\n", "", "data: [DONE]\n\n"});
  });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "GET /s HTTP/1.1\r\nConnection: close\r\n\r\n");
  auto [resp, closed] = read_until(fd, [](const std::string&) { return false; });
  EXPECT_TRUE(closed);
  EXPECT_NE(resp.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << resp;
  EXPECT_NE(resp.find("Connection: close\r\n"), std::string::npos) << resp;
  EXPECT_EQ(body_of(resp), "9\r\ndata: 1\n\n\r\ne\r\ndata: [DONE]\n\n\r\n0\r\n\r\n");
  ::close(fd);
}

TEST(EventHttpServer, Http10GetsTheStreamUnframedThenClose) {
  EventHttpServer s([](const HttpRequest&, EventHttpServer::Reply r) {
    r.send_chunked({200, "application/x-ndjson", {}, ""}, {"{\"a\":1}\n", "{\"b\":2}\n"});
  });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "GET / HTTP/1.0\r\n\r\n");
  auto [resp, closed] = read_until(fd, [](const std::string&) { return false; });
  EXPECT_TRUE(closed);
  EXPECT_EQ(resp.find("Transfer-Encoding"), std::string::npos) << resp;
  EXPECT_EQ(body_of(resp), "{\"a\":1}\n{\"b\":2}\n");
  ::close(fd);
}

TEST(EventHttpServer, DelayedRepliesDoNotHoldUpOtherConnections) {
  EventHttpServer* self = nullptr;
  EventHttpServer s([&](const HttpRequest& q, EventHttpServer::Reply r) {
    // /slow answers only after /fast has been answered: if requests were
    // served one at a time, /fast would never be reached.
    const auto delay = q.path == "/slow" ? 300ms : 0ms;
    self->after(delay, [r, path = q.path] { r.send({200, "text/plain", {}, path}); });
  });
  self = &s;
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int slow = connect_to(*port), fast = connect_to(*port);
  send_all(slow, "GET /slow HTTP/1.1\r\n\r\n");
  send_all(fast, "GET /fast HTTP/1.1\r\n\r\n");
  auto [f, f_closed] = read_until(fast, has_whole_response);
  EXPECT_EQ(body_of(f), "/fast");
  pollfd p{slow, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0) << "the slow reply arrived before the fast one";
  auto [sl, s_closed] = read_until(slow, has_whole_response);
  EXPECT_EQ(body_of(sl), "/slow");
  ::close(slow);
  ::close(fast);
}

TEST(EventHttpServer, ManyConcurrentWaitingRequestsAreAllAnswered) {
  constexpr int kClients = 300;
  EventHttpServer* self = nullptr;
  std::atomic<int> waiting{0};
  EventHttpServer s([&](const HttpRequest& q, EventHttpServer::Reply r) {
    ++waiting;
    self->after(200ms, [r, path = q.path] { r.send({200, "text/plain", {}, path}); });
  });
  self = &s;
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::vector<int> fds;
  for (int i = 0; i < kClients; ++i) {
    fds.push_back(connect_to(*port));
    ASSERT_GE(fds.back(), 0);
    send_all(fds.back(), "GET /c" + std::to_string(i) + " HTTP/1.1\r\n\r\n");
  }
  for (int i = 0; i < kClients; ++i) {
    auto [resp, closed] = read_until(fds[static_cast<size_t>(i)], has_whole_response);
    EXPECT_EQ(body_of(resp), "/c" + std::to_string(i));
    ::close(fds[static_cast<size_t>(i)]);
  }
  EXPECT_EQ(waiting, kClients);
}

TEST(EventHttpServer, ClientGoneBeforeTheReplyIsHarmless) {
  EventHttpServer* self = nullptr;
  std::atomic<int> open_at_reply{-1};
  EventHttpServer s([&](const HttpRequest& q, EventHttpServer::Reply r) {
    if (q.path == "/ping") return r.send({200, "text/plain", {}, "pong"});
    self->after(200ms, [&, r] {
      open_at_reply = r.open() ? 1 : 0;
      r.send({200, "text/plain", {}, "late"});
    });
  });
  self = &s;
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int gone = connect_to(*port);
  send_all(gone, "GET /wait HTTP/1.1\r\n\r\n");
  std::this_thread::sleep_for(50ms);
  ::close(gone);
  for (int i = 0; i < 100 && open_at_reply < 0; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(open_at_reply, 0);
  const int fd = connect_to(*port);
  send_all(fd, "GET /ping HTTP/1.1\r\n\r\n");
  auto [resp, closed] = read_until(fd, has_whole_response);
  EXPECT_EQ(body_of(resp), "pong");
  ::close(fd);
}

TEST(EventHttpServer, HeadersThenCloseDropsTheConnectionWithoutABody) {
  EventHttpServer s([](const HttpRequest&, EventHttpServer::Reply r) {
    r.send_headers_then_close({200, "application/json", {}, "x"});
  });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "GET / HTTP/1.1\r\n\r\n");
  auto [resp, closed] = read_until(fd, [](const std::string&) { return false; });
  EXPECT_TRUE(closed);
  EXPECT_TRUE(resp.starts_with("HTTP/1.1 200 OK\r\n")) << resp;
  EXPECT_EQ(body_of(resp), "");
  ::close(fd);
}

TEST(EventHttpServer, MalformedRequestGets400AndClose) {
  std::atomic<int> served{0};
  EventHttpServer s([&](const HttpRequest&, EventHttpServer::Reply r) {
    ++served;
    r.send({});
  });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n");
  auto [resp, closed] = read_until(fd, [](const std::string&) { return false; });
  EXPECT_TRUE(closed);
  EXPECT_TRUE(resp.starts_with("HTTP/1.1 400 Bad Request\r\n")) << resp;
  EXPECT_NE(resp.find("malformed Content-Length"), std::string::npos) << resp;
  EXPECT_EQ(served, 0);
  ::close(fd);
}

TEST(EventHttpServer, AThrowingHandlerAnswers500) {
  EventHttpServer s([](const HttpRequest&, EventHttpServer::Reply) { throw std::runtime_error("kaboom"); });
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "GET / HTTP/1.1\r\n\r\n");
  auto [resp, closed] = read_until(fd, has_whole_response);
  EXPECT_TRUE(resp.starts_with("HTTP/1.1 500")) << resp;
  EXPECT_NE(resp.find("kaboom"), std::string::npos) << resp;
  ::close(fd);
}

TEST(EventHttpServer, StopReturnsWhileRepliesAreStillWaiting) {
  EventHttpServer* self = nullptr;
  EventHttpServer s([&](const HttpRequest&, EventHttpServer::Reply r) { self->after(60s, [r] { r.send({}); }); });
  self = &s;
  auto port = s.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = connect_to(*port);
  send_all(fd, "GET / HTTP/1.1\r\n\r\n");
  std::this_thread::sleep_for(50ms);
  s.stop();
  auto [resp, closed] = read_until(fd, [](const std::string&) { return false; });
  EXPECT_TRUE(closed);  // dropped, not answered after 60 s
  EXPECT_EQ(resp, "");
  s.stop();  // idempotent
  ::close(fd);
}

TEST(EventHttpServer, BusyPortAndForeignAddressAreClearErrors) {
  EventHttpServer a([](const HttpRequest&, EventHttpServer::Reply r) { r.send({}); });
  auto port = a.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  EventHttpServer b([](const HttpRequest&, EventHttpServer::Reply r) { r.send({}); });
  auto busy = b.start("127.0.0.1", *port);
  ASSERT_FALSE(busy.ok());
  EXPECT_NE(busy.error().message.find("127.0.0.1:" + std::to_string(*port)), std::string::npos) << busy.error().message;
  EXPECT_NE(busy.error().message.find("in use"), std::string::npos) << busy.error().message;
  EventHttpServer c([](const HttpRequest&, EventHttpServer::Reply r) { r.send({}); });
  auto bad = c.start("192.0.2.1", 0);  // TEST-NET-1: no interface here has it
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("192.0.2.1:0"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace kaisha::mockllm
