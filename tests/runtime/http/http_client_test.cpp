#include "runtime/http/http_client.hpp"

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/http/fetch_blocking.hpp"
#include "tests/runtime/http/test_server.hpp"

namespace kaisha::http {
namespace {

using namespace std::chrono_literals;
using testing::TestServer;
using Clock = std::chrono::steady_clock;

// Submits and waits (generously) for on_done.
HttpResult run(HttpClient& client, HttpRequestSpec req, HttpOptions opts = {}, HttpCallbacks cb = {}) {
  auto p = std::make_shared<std::promise<HttpResult>>();
  auto f = p->get_future();
  cb.on_done = [p](HttpResult r) { p->set_value(std::move(r)); };
  client.submit(std::move(req), opts, std::move(cb));
  if (f.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "request did not complete";
    return HttpResult{};
  }
  return f.get();
}

HttpRequestSpec get(std::string url) {
  HttpRequestSpec r;
  r.method = "GET";
  r.url = std::move(url);
  return r;
}

TEST(HttpClient, GetReturnsBodyStatusAndLowerCasedHeaders) {
  TestServer s;
  s.server.Get("/hello", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("X-Custom-Thing", "yes");
    res.set_content("hello world", "text/plain");
  });
  s.start();
  HttpClient client;
  HttpResult r = run(client, get(s.url("/hello")));
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello world");
  EXPECT_EQ(r.header("x-custom-thing"), "yes");
  EXPECT_EQ(r.header("content-type"), "text/plain");
}

TEST(HttpClient, PostSendsBodyAndHeaders) {
  TestServer s;
  s.server.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(req.get_header_value("Authorization") + "|" + req.get_header_value("Content-Type") + "|" + req.body,
                    "text/plain");
  });
  s.start();
  HttpClient client;
  HttpRequestSpec req;
  req.url = s.url("/echo");
  req.headers = {{"Authorization", "Bearer k"}, {"Content-Type", "application/json"}};
  req.body = R"({"a":1})";
  HttpResult r = run(client, req);
  EXPECT_EQ(r.status, 200) << r.error_message;
  EXPECT_EQ(r.body, R"(Bearer k|application/json|{"a":1})");
}

TEST(HttpClient, ErrorStatusIsAResponseNotATransportError) {
  TestServer s;
  s.server.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("{\"error\":\"nope\"}", "application/json");
  });
  s.server.Get("/boom", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_header("Retry-After", "3");
    res.set_content("down", "text/plain");
  });
  s.start();
  HttpClient client;
  HttpResult a = run(client, get(s.url("/missing")));
  EXPECT_EQ(a.error, TransportError::none);
  EXPECT_EQ(a.status, 404);
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.body, "{\"error\":\"nope\"}");
  HttpResult b = run(client, get(s.url("/boom")));
  EXPECT_EQ(b.status, 503);
  EXPECT_EQ(b.header("retry-after"), "3");
}

TEST(HttpClient, StreamsChunkedBodyIncrementally) {
  TestServer s;
  s.server.Get("/stream", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
      for (int i = 0; i < 5; ++i) {
        std::string piece = "data: " + std::to_string(i) + "\n\n";
        sink.write(piece.data(), piece.size());
        std::this_thread::sleep_for(20ms);
      }
      sink.done();
      return true;
    });
  });
  s.start();
  HttpClient client;
  std::vector<std::string> chunks;  // touched only on the loop thread
  int header_status = 0;
  HttpCallbacks cb;
  cb.on_headers = [&](int status, const std::map<std::string, std::string>&) { header_status = status; };
  cb.on_data = [&](std::string_view c) { chunks.emplace_back(c); };
  HttpResult r = run(client, get(s.url("/stream")), {}, cb);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(header_status, 200);
  EXPECT_TRUE(r.body.empty()) << "streamed bodies are not accumulated";
  std::string all;
  for (auto& c : chunks) all += c;
  EXPECT_EQ(all, "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n");
  EXPECT_GE(chunks.size(), 2u) << "expected the body to arrive in several pieces";
}

TEST(HttpClient, StreamingRequestStillAccumulatesErrorBodies) {
  TestServer s;
  s.server.Get("/limited", [](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_content("slow down", "text/plain");
  });
  s.start();
  HttpClient client;
  bool saw_data = false;
  HttpCallbacks cb;
  cb.on_data = [&](std::string_view) { saw_data = true; };
  HttpResult r = run(client, get(s.url("/limited")), {}, cb);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.body, "slow down");
  EXPECT_FALSE(saw_data);
}

// A handler that waits until released (or 5 s), so server shutdown is quick.
struct Hang {
  std::atomic<bool> release{false};
  void operator()() {
    auto until = Clock::now() + 5s;
    while (!release && Clock::now() < until) std::this_thread::sleep_for(5ms);
  }
};

TEST(HttpClient, TimesOutOnHangingHandler) {
  TestServer s;
  Hang hang;
  s.server.Get("/hang", [&](const httplib::Request&, httplib::Response& res) {
    hang();
    res.set_content("late", "text/plain");
  });
  s.start();
  HttpClient client;
  HttpOptions opts;
  opts.timeout_ms = 200;
  auto t0 = Clock::now();
  HttpResult r = run(client, get(s.url("/hang")), opts);
  auto took = Clock::now() - t0;
  hang.release = true;
  EXPECT_EQ(r.error, TransportError::timeout) << r.error_message;
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 3s);
  EXPECT_NE(r.error_message.find("/hang"), std::string::npos) << r.error_message;
}

TEST(HttpClient, ConnectionRefusedIsAConnectError) {
  int port;
  {
    TestServer s;  // bind and release a port: nothing listens there afterwards
    s.start();
    port = s.port;
  }
  HttpClient client;
  HttpResult r = run(client, get("http://127.0.0.1:" + std::to_string(port) + "/x"));
  EXPECT_EQ(r.error, TransportError::connect) << r.error_message;
  EXPECT_EQ(r.status, 0);
}

TEST(HttpClient, EmptyUrlFailsCleanly) {
  HttpClient client;
  HttpResult r = run(client, get(""));
  EXPECT_EQ(r.error, TransportError::other);
  EXPECT_NE(r.error_message.find("empty URL"), std::string::npos);
}

TEST(HttpClient, BodyLargerThanLimitIsRefused) {
  TestServer s;
  s.server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(100000, 'x'), "text/plain");
  });
  s.start();
  HttpClient client;
  HttpOptions opts;
  opts.max_response_bytes = 1000;
  HttpResult r = run(client, get(s.url("/big")), opts);
  EXPECT_EQ(r.error, TransportError::too_large) << r.error_message;
}

TEST(HttpClient, CancelEndsRequestWithCancelled) {
  TestServer s;
  Hang hang;
  std::atomic<bool> arrived{false};
  s.server.Get("/hang", [&](const httplib::Request&, httplib::Response& res) {
    arrived = true;
    hang();
    res.set_content("late", "text/plain");
  });
  s.start();
  HttpClient client;
  auto p = std::make_shared<std::promise<HttpResult>>();
  auto f = p->get_future();
  HttpCallbacks cb;
  cb.on_done = [p](HttpResult r) { p->set_value(std::move(r)); };
  uint64_t id = client.submit(get(s.url("/hang")), {}, cb);
  auto until = Clock::now() + 10s;
  while (!arrived && Clock::now() < until) std::this_thread::sleep_for(5ms);
  auto t0 = Clock::now();
  client.cancel(id);
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_LT(Clock::now() - t0, 2s);
  hang.release = true;
  EXPECT_EQ(f.get().error, TransportError::cancelled);
  client.cancel(id);      // already done: ignored
  client.cancel(987654);  // unknown: ignored
}

TEST(HttpClient, DestructorCancelsPendingRequests) {
  TestServer s;
  Hang hang;
  s.server.Get("/hang", [&](const httplib::Request&, httplib::Response& res) {
    hang();
    res.set_content("late", "text/plain");
  });
  s.start();
  std::vector<HttpResult> results;
  std::mutex mu;
  {
    HttpClient client;
    for (int i = 0; i < 3; ++i) {
      HttpCallbacks cb;
      cb.on_done = [&](HttpResult r) {
        std::lock_guard lk(mu);
        results.push_back(std::move(r));
      };
      client.submit(get(s.url("/hang")), {}, cb);
    }
    std::this_thread::sleep_for(50ms);
  }
  hang.release = true;
  ASSERT_EQ(results.size(), 3u);
  for (auto& r : results) EXPECT_EQ(r.error, TransportError::cancelled);
}

TEST(HttpClient, ConcurrentRequestsOverlap) {
  TestServer s(256);  // a worker for each of the 200 requests
  std::atomic<int> inflight{0}, max_inflight{0};
  s.server.Get("/slow", [&](const httplib::Request&, httplib::Response& res) {
    int now = ++inflight;
    int prev = max_inflight.load();
    while (now > prev && !max_inflight.compare_exchange_weak(prev, now)) {
    }
    std::this_thread::sleep_for(200ms);
    --inflight;
    res.set_content("ok", "text/plain");
  });
  s.start();
  HttpClient client;
  constexpr int kN = 200;
  std::atomic<int> ok{0}, done{0};
  std::promise<void> all;
  auto t0 = Clock::now();
  for (int i = 0; i < kN; ++i) {
    HttpCallbacks cb;
    cb.on_done = [&](HttpResult r) {
      if (r.ok() && r.body == "ok") ++ok;
      if (++done == kN) all.set_value();
    };
    client.submit(get(s.url("/slow")), {}, cb);
  }
  ASSERT_EQ(all.get_future().wait_for(60s), std::future_status::ready)
      << done << " done, " << ok << " ok, in flight " << client.in_flight() << ", server max " << max_inflight;
  auto took = Clock::now() - t0;
  EXPECT_EQ(ok.load(), kN);
  // Serial would take 40 s; allow a loaded machine plenty of slack.
  EXPECT_LT(took, 15s);
  EXPECT_GT(max_inflight.load(), 10);
  EXPECT_EQ(client.in_flight(), 0u);
}

// Keep-alive: a new TCP connection per request would add a handshake (and,
// on a thread-per-connection server, a worker hand-off) to every LLM call.
// The server sees the client's port: one port means one connection.
TEST(HttpClient, SequentialRequestsReuseOneConnection) {
  TestServer s;
  s.server.set_keep_alive_max_count(1000);  // httplib closes after 5 requests by default
  std::mutex mu;
  std::vector<int> ports;
  s.server.Post("/echo", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lk(mu);
    ports.push_back(req.remote_port);
    res.set_content(req.body, "application/json");
  });
  s.start();
  HttpClient client;
  constexpr int kN = 20;
  for (int i = 0; i < kN; ++i) {
    HttpRequestSpec req;
    req.url = s.url("/echo");
    req.body = std::to_string(i);
    HttpResult r = run(client, req);
    ASSERT_TRUE(r.ok()) << r.error_message;
    EXPECT_EQ(r.body, std::to_string(i));
  }
  std::lock_guard lk(mu);
  ASSERT_EQ(ports.size(), static_cast<size_t>(kN));
  for (int p : ports) EXPECT_EQ(p, ports.front());
}

TEST(HttpClient, ScheduleRunsInDueOrderOnLoopThread) {
  HttpClient client;
  std::mutex mu;
  std::vector<int> order;
  std::promise<void> last;
  bool all_on_loop = true;
  auto add = [&](int v) {
    std::lock_guard lk(mu);
    all_on_loop = all_on_loop && client.on_loop_thread();
    order.push_back(v);
    if (order.size() == 4) last.set_value();
  };
  auto t0 = Clock::now();
  client.schedule(120ms, [&] { add(3); });
  client.schedule(10ms, [&] { add(1); });
  client.schedule(60ms, [&] { add(2); });
  client.schedule(120ms, [&] { add(4); });  // same due time: after 3
  ASSERT_EQ(last.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_GE(Clock::now() - t0, 110ms);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(all_on_loop);
  EXPECT_FALSE(client.on_loop_thread());
}

TEST(HttpClient, DestructorRunsPendingTimers) {
  std::atomic<bool> ran{false};
  {
    HttpClient client;
    client.schedule(std::chrono::hours(1), [&] { ran = true; });
  }
  EXPECT_TRUE(ran);
}

TEST(HttpClient, ThrowingCallbackDoesNotKillTheLoop) {
  TestServer s;
  s.server.Get("/x", [](const httplib::Request&, httplib::Response& res) { res.set_content("x", "text/plain"); });
  s.start();
  HttpClient client;
  HttpCallbacks bad;
  bad.on_done = [](HttpResult) { throw std::runtime_error("oops"); };
  client.submit(get(s.url("/x")), {}, bad);
  HttpResult r = run(client, get(s.url("/x")));
  EXPECT_EQ(r.body, "x");
}

TEST(FetchBlocking, GetsAndReportsRefusal) {
  TestServer s;
  s.server.Get("/api/tags", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"models\":[]}", "application/json");
  });
  s.start();
  HttpOptions opts;
  opts.timeout_ms = 2000;
  HttpResult r = fetch_blocking(get(s.url("/api/tags")), opts);
  EXPECT_TRUE(r.ok()) << r.error_message;
  EXPECT_EQ(r.body, "{\"models\":[]}");
  s.stop();
  HttpResult refused = fetch_blocking(get(s.url("/api/tags")), opts);
  EXPECT_EQ(refused.error, TransportError::connect) << refused.error_message;
}

}  // namespace
}  // namespace kaisha::http
