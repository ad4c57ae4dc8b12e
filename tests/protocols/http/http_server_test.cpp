// HttpServer over real sockets on 127.0.0.1 with an ephemeral port, driven by
// cpp-httplib's client and, for disconnects, a raw socket.
#include "protocols/http/http_server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace kaisha::protocols {
namespace {

json body_json(const httplib::Result& r) { return json::parse(r->body, nullptr, false); }

TEST(HttpServer, RoutesJsonAndPathParams) {
  HttpServer server(HttpServerOptions{});
  server.route("POST", "/echo/([a-z]+)", [](const HttpRequest& q, HttpResponse& r) {
    r.set_json(200, json{{"who", q.path_params.at(0)},
                         {"body", q.body},
                         {"hdr", q.header("X-Thing")},
                         {"q", q.query.count("k") ? q.query.at("k") : ""}});
  });
  auto port = server.start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  httplib::Client c("127.0.0.1", *port);
  auto r = c.Post("/echo/bob?k=v", {{"X-Thing", "yes"}}, "hello", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  auto j = body_json(r);
  EXPECT_EQ(j["who"], "bob");
  EXPECT_EQ(j["body"], "hello");
  EXPECT_EQ(j["hdr"], "yes");
  EXPECT_EQ(j["q"], "v");
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
}

TEST(HttpServer, UnknownRouteGetsJsonError) {
  HttpServer server(HttpServerOptions{});
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/nowhere");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  auto j = body_json(r);
  EXPECT_EQ(j["error"]["code"], "not_found");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("/nowhere"), std::string::npos);
}

TEST(HttpServer, OversizedBodyIs413WithoutReachingTheHandler) {
  HttpServerOptions o;
  o.max_body_bytes = 1000;
  HttpServer server(o);
  std::atomic<int> calls{0};
  server.route("POST", "/in", [&](const HttpRequest&, HttpResponse& r) {
    ++calls;
    r.set_json(200, json::object());
  });
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Post("/in", std::string(5000, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(calls.load(), 0);
  auto ok = c.Post("/in", std::string(10, 'x'), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServer, BearerTokenIsRequiredWhenConfigured) {
  HttpServerOptions o;
  o.bearer_token = "t0ken";
  HttpServer server(o);
  server.route("GET", "/x", [](const HttpRequest&, HttpResponse& r) { r.set_json(200, json{{"ok", true}}); });
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  auto none = c.Get("/x");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");
  auto wrong = c.Get("/x", {{"Authorization", "Bearer nope"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto right = c.Get("/x", {{"Authorization", "Bearer t0ken"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
}

TEST(HttpServer, NonLoopbackWithoutTokenIsRefusedAtStart) {
  HttpServerOptions o;
  o.host = "0.0.0.0";
  HttpServer server(o);
  auto r = server.start();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bind");
}

TEST(HttpServer, PortInUseIsAClearError) {
  HttpServer a(HttpServerOptions{});
  ASSERT_TRUE(a.start().ok());
  HttpServerOptions o;
  o.port = a.port();
  HttpServer b(o);
  auto r = b.start();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(std::to_string(a.port())), std::string::npos);
}

TEST(HttpServer, HandlerExceptionBecomes500) {
  HttpServer server(HttpServerOptions{});
  server.route("GET", "/boom", [](const HttpRequest&, HttpResponse&) { throw std::runtime_error("secret"); });
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/boom");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body.find("secret"), std::string::npos);
}

// The packaged httplib brotli-compresses set_content() bodies for any client
// that accepts "br" (curl's default), at ~0.3 ms of CPU per small answer.
TEST(HttpServer, AnswersAreNotCompressedEvenWhenTheClientAcceptsIt) {
  HttpServer server(HttpServerOptions{});
  const std::string big(5000, 'a');
  server.route("POST", "/json", [&](const HttpRequest&, HttpResponse& r) { r.set_json(200, json{{"text", big}}); });
  server.route("GET", "/teapot",
               [](const HttpRequest&, HttpResponse& r) { r.set_error(418, "teapot", "short and stout"); });
  server.route("GET", "/bare", [](const HttpRequest&, HttpResponse& r) { r.status = 409; });
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  const httplib::Headers accept_all{{"Accept-Encoding", "gzip, deflate, br"}};

  auto ok = c.Post("/json", accept_all, "{}", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(ok->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(ok->get_header_value("Content-Length"), std::to_string(ok->body.size()));
  EXPECT_EQ(body_json(ok)["text"], big);

  // A handler's own error body is kept; an error status without a body gets
  // the server's JSON error; neither is compressed.
  auto teapot = c.Get("/teapot", accept_all);
  ASSERT_TRUE(teapot);
  EXPECT_EQ(teapot->status, 418);
  EXPECT_EQ(teapot->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(body_json(teapot)["error"]["message"], "short and stout");
  auto bare = c.Get("/bare", accept_all);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 409);
  EXPECT_EQ(bare->get_header_value("Content-Encoding"), "");
  EXPECT_NE(body_json(bare)["error"]["message"].get<std::string>().find("/bare"), std::string::npos);
  auto missing = c.Get("/nowhere", accept_all);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(body_json(missing)["error"]["code"], "not_found");
}

TEST(HttpServer, CheckOriginUsesTheBinding) {
  HttpServer server(HttpServerOptions{});
  HttpRequest q;
  q.headers["host"] = "127.0.0.1:1";
  EXPECT_TRUE(server.check_origin(q).ok());
  q.headers["origin"] = "http://evil.example";
  EXPECT_FALSE(server.check_origin(q).ok());
  q.headers["origin"] = "http://localhost:3000";
  q.headers["host"] = "evil.example";
  EXPECT_FALSE(server.check_origin(q).ok());
}

TEST(SseFormat, SplitsDataLines) {
  EXPECT_EQ(format_sse_event("a\nb", "message", "7"), "event: message\nid: 7\ndata: a\ndata: b\n\n");
  EXPECT_EQ(format_sse_event(""), "data: \n\n");
}

TEST(HttpServer, SseEventsPushedFromAnotherThreadArriveInOrder) {
  HttpServer server(HttpServerOptions{});
  std::thread pusher;
  server.route("GET", "/events", [&](const HttpRequest&, HttpResponse& r) {
    auto w = r.start_sse();
    w->send_retry(1500);
    pusher = std::thread([w] {
      for (int i = 0; i < 5; ++i) w->send("{\"n\":" + std::to_string(i) + "}", "message", std::to_string(i));
      w->close();
    });
  });
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/events");
  pusher.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  std::string expected = "retry: 1500\n\n";
  for (int i = 0; i < 5; ++i)
    expected += "event: message\nid: " + std::to_string(i) + "\ndata: {\"n\":" + std::to_string(i) + "}\n\n";
  EXPECT_EQ(r->body, expected);
}

// Opens a raw connection, sends a request, reads the response head.
int raw_get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) return -1;
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  char buf[512];
  (void)!::read(fd, buf, sizeof(buf));
  return fd;
}

TEST(HttpServer, SseClientDisconnectIsDetected) {
  HttpServerOptions o;
  o.sse_heartbeat_ms = 20;
  HttpServer server(o);
  std::promise<std::shared_ptr<SseWriter>> writer;
  std::promise<void> closed;
  server.route("GET", "/events", [&](const HttpRequest&, HttpResponse& r) {
    auto w = r.start_sse();
    w->on_close([&closed] { closed.set_value(); });
    w->send("hello");
    writer.set_value(w);
  });
  ASSERT_TRUE(server.start().ok());
  int fd = raw_get(server.port(), "/events");
  ASSERT_GE(fd, 0);
  auto w = writer.get_future().get();
  ::close(fd);
  ASSERT_EQ(closed.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(w->closed());
  EXPECT_TRUE(w->disconnected());
  EXPECT_FALSE(w->send("too late"));
}

TEST(HttpServer, StopEndsOpenStreams) {
  HttpServerOptions o;
  o.keep_alive_timeout_ms = 1000;
  auto server = std::make_unique<HttpServer>(o);
  std::promise<std::shared_ptr<SseWriter>> writer;
  server->route("GET", "/events", [&](const HttpRequest&, HttpResponse& r) {
    auto w = r.start_sse();
    w->send("x");
    writer.set_value(w);
  });
  ASSERT_TRUE(server->start().ok());
  int fd = raw_get(server->port(), "/events");
  ASSERT_GE(fd, 0);
  auto w = writer.get_future().get();
  server->stop();  // would hang if the stream held its worker forever
  EXPECT_TRUE(w->closed());
  EXPECT_FALSE(w->send("after stop"));
  ::close(fd);
}

}  // namespace
}  // namespace kaisha::protocols
