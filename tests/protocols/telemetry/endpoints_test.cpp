// /metrics and /events on a real HttpServer: the token rule, the stream's
// replay after Last-Event-ID, and a reader that goes away taking its
// subscription with it.
#include <httplib.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/telemetry/events_endpoint.hpp"
#include "protocols/telemetry/metrics_endpoint.hpp"
#include "runtime/llm/sse_event_reader.hpp"
#include "runtime/telemetry/prometheus_text.hpp"

namespace kaisha::telemetry_http {
namespace {

msg::ProgressEvent event(const std::string& text) {
  msg::ProgressEvent e;
  e.kind = msg::EventKind::ask;
  e.task_id = "t1";
  e.text = text;
  return e;
}

TEST(TelemetryEndpoints, WithATokenBothRefuseAReaderWithoutIt) {
  protocols::HttpServerOptions o;
  o.bearer_token = "s3cret";
  protocols::HttpServer server(o);
  telemetry::MetricsRegistry registry;
  registry.counter("kaisha_things_total", "Things").with().add(3);
  auto log = std::make_shared<company::EventLog>();
  mount_metrics(server, registry);
  mount_events(server, log);
  ASSERT_TRUE(server.start().ok());
  httplib::Client c("127.0.0.1", server.port());
  for (const char* path : {"/metrics", "/events?kinds=dance"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
  }
  httplib::Headers auth{{"Authorization", "Bearer s3cret"}};
  auto m = c.Get("/metrics", auth);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  auto p = telemetry::parse_prometheus_text(m->body);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->value("kaisha_things_total"), 3);
  auto bad = c.Get("/events?kinds=dance", auth);  // past the token, the filter is checked
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

TEST(TelemetryEndpoints, EventsResumeAfterAnIdAndAReaderThatLeavesIsUnsubscribed) {
  protocols::HttpServerOptions o;
  o.sse_heartbeat_ms = 50;  // a reader that went away is noticed within about this
  protocols::HttpServer server(o);
  auto log = std::make_shared<company::EventLog>(100, 9);
  mount_events(server, log);
  ASSERT_TRUE(server.start().ok());
  for (const char* t : {"a", "b", "c"}) log->emit(event(t));

  // The live event, sent once the reader below is subscribed.
  std::thread live([&] {
    for (int i = 0; i < 3000 && log->subscribers() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    log->emit(event("d"));
  });
  std::vector<std::string> texts, ids;
  llm::SseEventReader reader;
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Get("/events?task=t1", httplib::Headers{{"Last-Event-ID", "9-1"}}, [&](const char* data, size_t len) {
    reader.feed(std::string_view(data, len), [&](const llm::SseMessage& e) {
      texts.push_back(json::parse(e.data).value("text", ""));
      ids.push_back(e.id);
    });
    return texts.size() < 3;  // b and c are replayed; d comes live
  });
  live.join();
  // httplib returns once the receiver said stop.
  EXPECT_EQ(texts, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_EQ(ids, (std::vector<std::string>{"9-2", "9-3", "9-4"}));
  // The reader hung up: its subscription ends (noticed by a write or the heartbeat).
  bool gone = false;
  for (int i = 0; i < 1000 && !gone; ++i) {
    log->emit(event("nobody reads this"));
    gone = log->subscribers() == 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone);
}

}  // namespace
}  // namespace kaisha::telemetry_http
