// SpanExporter against a trace file and against a real OTLP/HTTP endpoint on
// loopback (cpp-httplib): what arrives, retries, drops, flush and shutdown.
// Every wait is on a condition with a generous limit; no test depends on how
// fast the machine is.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "runtime/telemetry/otlp_json.hpp"
#include "runtime/telemetry/span_exporter.hpp"
#include "runtime/telemetry/trace_context.hpp"
#include "tests/runtime/http/test_server.hpp"

namespace kaisha::telemetry {
namespace span_exporter_test {

using namespace std::chrono_literals;

constexpr auto kPatience = 30s;  // a limit for what takes milliseconds when all is well

Span make_span(const std::string& name) {
  const TraceContext c = TraceContext::new_root();
  Span s;
  s.trace_id = c.trace_id;
  s.span_id = c.span_id;
  s.name = name;
  s.start_unix_ns = now_unix_ns();
  s.end_unix_ns = s.start_unix_ns + 1000;
  s.set("kaisha.index", name);
  return s;
}

size_t span_count(const std::vector<SpanBatch>& batches) {
  size_t n = 0;
  for (const auto& b : batches) n += b.spans.size();
  return n;
}

std::unique_ptr<SpanExporter> start_or_die(SpanExporterOptions o) {
  auto e = SpanExporter::start(std::move(o));
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return e.ok() ? std::move(*e) : nullptr;
}

// ---- a trace file ----

class SpanExporterFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ =
        std::filesystem::temp_directory_path() / ("kaisha-trace-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
};

TEST_F(SpanExporterFile, WritesOneRequestPerLineThatReadsBack) {
  SpanExporterOptions o;
  o.file = path("traces.jsonl");
  o.node = "node-a";
  o.batch_size = 100;
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  for (int i = 0; i < 1000; ++i) e->record(make_span("s" + std::to_string(i)));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 1000u);
  EXPECT_EQ(e->dropped(), 0u);
  EXPECT_EQ(e->failed(), 0u);

  const std::string text = read(o.file);
  auto batches = decode_otlp_jsonl(text);
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  EXPECT_EQ(span_count(*batches), 1000u);
  size_t lines = 0;
  for (const auto& b : *batches) {
    ++lines;
    EXPECT_EQ(b.node, "node-a");
    EXPECT_LE(b.spans.size(), 100u);  // a line never holds more than a batch
  }
  EXPECT_GE(lines, 10u);
  // In the order recorded.
  EXPECT_EQ((*batches)[0].spans[0].name, "s0");
  EXPECT_EQ(batches->back().spans.back().name, "s999");
}

TEST_F(SpanExporterFile, AppendsToWhatIsThereAndDestructionWritesWhatIsQueued) {
  const std::string file = path("traces.jsonl");
  for (int run = 0; run < 2; ++run) {
    SpanExporterOptions o;
    o.file = file;
    o.interval = 1h;  // nothing is written before destruction
    auto e = start_or_die(o);
    ASSERT_TRUE(e);
    for (int i = 0; i < 5; ++i) e->record(make_span("run" + std::to_string(run)));
  }
  auto batches = decode_otlp_jsonl(read(file));
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  EXPECT_EQ(span_count(*batches), 10u);
}

TEST_F(SpanExporterFile, ManyThreadsRecordAtOnce) {
  SpanExporterOptions o;
  o.file = path("traces.jsonl");
  o.batch_size = 64;
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&e, t] {
      for (int i = 0; i < 250; ++i) e->record(make_span("t" + std::to_string(t)));
    });
  for (auto& t : threads) t.join();
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 1000u);
  auto batches = decode_otlp_jsonl(read(o.file));
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  EXPECT_EQ(span_count(*batches), 1000u);
}

TEST_F(SpanExporterFile, AFileThatCannotBeOpenedIsAnError) {
  SpanExporterOptions o;
  o.file = path("no-such-dir/traces.jsonl");
  auto e = SpanExporter::start(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, "io");
  EXPECT_NE(e.error().message.find(o.file), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("No such file"), std::string::npos) << e.error().message;
}

TEST(SpanExporterOptionsCheck, RefusesWhatCannotWork) {
  struct Case {
    std::string endpoint, file;
    size_t capacity;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"ftp://127.0.0.1/v1/traces", "", 4096, "http:// or https://"},
      {"127.0.0.1:4318/v1/traces", "", 4096, "http:// or https://"},
      {"http://", "", 4096, "http:// or https://"},
      {"not a url", "", 4096, "http:// or https://"},
      {"", "", 4096, "exactly one of"},
      {"http://127.0.0.1:4318/v1/traces", "traces.jsonl", 4096, "exactly one of"},
      {"http://127.0.0.1:4318/v1/traces", "", 0, "at least 1"},
  };
  for (const auto& c : cases) {
    SpanExporterOptions o;
    o.endpoint = c.endpoint;
    o.file = c.file;
    o.queue_capacity = c.capacity;
    auto e = SpanExporter::start(o);
    ASSERT_FALSE(e.ok()) << c.endpoint;
    EXPECT_EQ(e.error().code, "config");
    EXPECT_NE(e.error().message.find(c.error), std::string::npos) << e.error().message;
  }
  SpanExporterOptions spinning;
  spinning.endpoint = "http://127.0.0.1:4318/v1/traces";
  spinning.interval = 0ms;
  auto e = SpanExporter::start(spinning);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("at least 1 ms"), std::string::npos) << e.error().message;
  SpanExporterOptions negative;
  negative.endpoint = "http://127.0.0.1:4318/v1/traces";
  negative.retry_base_delay = -1ms;
  EXPECT_FALSE(SpanExporter::start(negative).ok());
  // Both schemes pass (nothing is sent until a span is recorded).
  for (const char* url : {"http://127.0.0.1:4318/v1/traces", "https://collector.example/v1/traces"}) {
    SpanExporterOptions o;
    o.endpoint = url;
    EXPECT_TRUE(SpanExporter::start(o).ok()) << url;
  }
}

// ---- OTLP/HTTP ----

// A collector on loopback that keeps every request and answers with
// `status(i)` for the i-th (from 0). With `stall`, each handler waits for
// release() before answering.
class Collector {
 public:
  struct Received {
    std::string path, content_type, authorization, body;
  };

  explicit Collector(
      std::function<int(size_t)> status = [](size_t) { return 200; }, bool stall = false)
      : status_(std::move(status)), stall_(stall) {
    server_.server.Post("/v1/traces", [this](const httplib::Request& req, httplib::Response& res) {
      size_t index;
      {
        std::unique_lock<std::mutex> lock(mu_);
        received_.push_back(
            {req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
        index = received_.size() - 1;
        cv_.notify_all();
        if (stall_) cv_.wait_for(lock, 60s, [&] { return released_; });
      }
      const int code = status_(index);
      res.status = code;
      if (code == 429 || code == 503) res.set_header("Retry-After", retry_after_);
      res.set_content(code == 200 ? "{}" : R"({"message":"try later"})", "application/json");
    });
    server_.start();
  }
  ~Collector() {
    release();
    server_.stop();
  }

  std::string url() const { return server_.url("/v1/traces"); }
  void set_retry_after(std::string v) { retry_after_ = std::move(v); }

  bool wait_for_requests(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return received_.size() >= n; });
  }
  std::vector<Received> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }
  size_t spans_received() {
    size_t n = 0;
    for (const auto& r : received()) {
      auto batches = decode_otlp_json(r.body);
      EXPECT_TRUE(batches.ok()) << (batches.ok() ? "" : batches.error().message);
      if (batches.ok()) n += span_count(*batches);
    }
    return n;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::function<int(size_t)> status_;
  bool stall_;
  std::string retry_after_ = "0";
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Received> received_;
  bool released_ = false;
  http::testing::TestServer server_;  // last: its handlers use the members above
};

SpanExporterOptions http_options(const Collector& c) {
  SpanExporterOptions o;
  o.endpoint = c.url();
  o.retry_base_delay = 5ms;
  o.retry_max_delay = 50ms;
  return o;
}

TEST(SpanExporterHttp, PostsOtlpJsonWithItsHeaders) {
  Collector collector;
  SpanExporterOptions o = http_options(collector);
  o.node = "node-a";
  o.headers = {{"Authorization", "Bearer x"}};
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  e->record(make_span("first"));
  e->record(make_span("second"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 2u);
  EXPECT_EQ(e->last_error(), "");

  const auto received = collector.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, "/v1/traces");
  EXPECT_EQ(received[0].content_type, "application/json");
  EXPECT_EQ(received[0].authorization, "Bearer x");
  auto batches = decode_otlp_json(received[0].body);
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  ASSERT_EQ(batches->size(), 1u);
  EXPECT_EQ((*batches)[0].node, "node-a");
  ASSERT_EQ((*batches)[0].spans.size(), 2u);
  EXPECT_EQ((*batches)[0].spans[0].name, "first");
  EXPECT_EQ((*batches)[0].spans[1].name, "second");
}

TEST(SpanExporterHttp, SendsAPartialBatchWhenTheIntervalIsUp) {
  Collector collector;
  SpanExporterOptions o = http_options(collector);
  o.interval = 20ms;  // the batch (512) never fills: only the interval sends
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  e->record(make_span("lonely"));
  ASSERT_TRUE(collector.wait_for_requests(1));
  EXPECT_EQ(collector.spans_received(), 1u);
}

TEST(SpanExporterHttp, RetriesA503AndThenDelivers) {
  Collector collector([](size_t i) { return i == 0 ? 503 : 200; });
  auto e = start_or_die(http_options(collector));
  ASSERT_TRUE(e);
  for (int i = 0; i < 3; ++i) e->record(make_span("s"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 3u);
  EXPECT_EQ(e->failed(), 0u);
  const auto received = collector.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].body, received[1].body);  // the same batch again
}

TEST(SpanExporterHttp, ARetryAfterBeyondTheCapWaitsOnlyTheCap) {
  // An hour's Retry-After, capped at 50 ms: the flush ends long before its limit.
  Collector collector([](size_t i) { return i == 0 ? 429 : 200; });
  collector.set_retry_after("3600");
  auto e = start_or_die(http_options(collector));
  ASSERT_TRUE(e);
  e->record(make_span("s"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 1u);
  EXPECT_EQ(collector.received().size(), 2u);
}

TEST(SpanExporterHttp, GivesUpAfterMaxAttemptsAndCountsTheSpans) {
  Collector collector([](size_t) { return 503; });
  SpanExporterOptions o = http_options(collector);
  o.max_attempts = 3;
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  e->record(make_span("a"));
  e->record(make_span("b"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->failed(), 2u);
  EXPECT_EQ(e->exported(), 0u);
  EXPECT_EQ(collector.received().size(), 3u);
  EXPECT_NE(e->last_error().find("HTTP 503"), std::string::npos) << e->last_error();
}

TEST(SpanExporterHttp, DoesNotRetryABadRequest) {
  Collector collector([](size_t) { return 400; });
  auto e = start_or_die(http_options(collector));
  ASSERT_TRUE(e);
  e->record(make_span("a"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->failed(), 1u);
  EXPECT_EQ(collector.received().size(), 1u);
  EXPECT_NE(e->last_error().find("HTTP 400"), std::string::npos) << e->last_error();
}

TEST(SpanExporterHttp, RetriesWhenNothingListensThenGivesUp) {
  std::string url;
  {
    Collector gone;  // a port that was just free, and is again
    url = gone.url();
  }
  SpanExporterOptions o;
  o.endpoint = url;
  o.max_attempts = 2;
  o.retry_base_delay = 5ms;
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  e->record(make_span("a"));
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->failed(), 1u);
  EXPECT_NE(e->last_error().find("POST " + url), std::string::npos) << e->last_error();
}

TEST(SpanExporterHttp, AFullQueueDropsAndCountsWithoutBlocking) {
  Collector collector([](size_t) { return 200; }, /*stall=*/true);
  SpanExporterOptions o = http_options(collector);
  o.queue_capacity = 8;
  o.batch_size = 4;
  o.interval = 1h;
  o.request_timeout = 60s;  // the stalled request stays in flight
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  // The first full batch leaves the queue and hangs in the stalled server.
  for (int i = 0; i < 4; ++i) e->record(make_span("first"));
  ASSERT_TRUE(collector.wait_for_requests(1));
  // 8 fill the queue and 5 more are refused, each without waiting: were
  // record() to wait for the stalled export, this would not finish until the
  // collector is released below.
  auto recording = std::async(std::launch::async, [&] {
    for (int i = 0; i < 13; ++i) e->record(make_span("more"));
  });
  const bool returned = recording.wait_for(kPatience) == std::future_status::ready;
  collector.release();
  recording.wait();
  ASSERT_TRUE(returned) << "record() blocked while the export was stalled";
  EXPECT_EQ(e->dropped(), 5u);
  ASSERT_TRUE(e->flush(kPatience));
  EXPECT_EQ(e->exported(), 12u);
  EXPECT_EQ(collector.spans_received(), 12u);
}

TEST(SpanExporterHttp, DestructionSendsWhatIsQueued) {
  Collector collector;
  {
    SpanExporterOptions o = http_options(collector);
    o.interval = 1h;  // only destruction can send these
    auto e = start_or_die(o);
    ASSERT_TRUE(e);
    for (int i = 0; i < 3; ++i) e->record(make_span("s"));
  }
  EXPECT_EQ(collector.spans_received(), 3u);
}

TEST(SpanExporterHttp, DestructionGivesUpOnAStalledCollectorAtItsDeadline) {
  Collector collector([](size_t) { return 200; }, /*stall=*/true);
  SpanExporterOptions o = http_options(collector);
  o.request_timeout = 600s;  // only the shutdown deadline can end the transfer
  o.shutdown_timeout = 100ms;
  auto e = start_or_die(o);
  ASSERT_TRUE(e);
  e->record(make_span("s"));
  e->flush(1ms);  // asks for the send now; whether it ends within 1 ms does not matter
  ASSERT_TRUE(collector.wait_for_requests(1));
  auto destroying = std::async(std::launch::async, [&] { e.reset(); });
  const bool returned = destroying.wait_for(kPatience) == std::future_status::ready;
  collector.release();
  destroying.wait();
  EXPECT_TRUE(returned) << "destruction waited for the stalled transfer";
}

}  // namespace span_exporter_test
}  // namespace kaisha::telemetry
