#include "runtime/telemetry/metrics_registry.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/telemetry/prometheus_text.hpp"

namespace kaisha::telemetry {
namespace {

ParsedExposition parse(const MetricsRegistry& r) {
  auto p = parse_prometheus_text(r.render());
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message) << "\n" << r.render();
  return p.ok() ? *p : ParsedExposition{};
}

TEST(MetricsRegistry, CountersAndGaugesRenderWithHelpTypeAndLabels) {
  MetricsRegistry r;
  auto& calls = r.counter("kaisha_calls_total", "Calls made", {"model"});
  calls.with({"llama3.2"}).add();
  calls.with({"llama3.2"}).add(2);
  calls.with({"gpt-4o"}).add(0.5);
  calls.with({"gpt-4o"}).add(-3);  // a counter never goes down
  r.gauge("kaisha_level", "A level").with().set(-1.25);
  const std::string text = r.render();
  EXPECT_NE(text.find("# HELP kaisha_calls_total Calls made\n# TYPE kaisha_calls_total counter\n"), std::string::npos)
      << text;
  auto p = parse(r);
  EXPECT_EQ(p.value("kaisha_calls_total", {{"model", "llama3.2"}}), 3);
  EXPECT_EQ(p.value("kaisha_calls_total", {{"model", "gpt-4o"}}), 0.5);
  EXPECT_EQ(p.value("kaisha_level"), -1.25);
  EXPECT_EQ(p.types["kaisha_level"], "gauge");
}

TEST(MetricsRegistry, HistogramBucketsAreCumulativeWithSumAndCount) {
  MetricsRegistry r;
  auto& h = r.histogram("kaisha_seconds", "Durations", {"op"}, {0.1, 1}).with({"x"});
  h.observe(0.05);
  h.observe(0.5);
  h.observe(0.5);
  h.observe(7);
  auto p = parse(r);
  EXPECT_EQ(p.types["kaisha_seconds"], "histogram");
  EXPECT_EQ(p.value("kaisha_seconds_bucket", {{"op", "x"}, {"le", "0.1"}}), 1);
  EXPECT_EQ(p.value("kaisha_seconds_bucket", {{"op", "x"}, {"le", "1"}}), 3);
  EXPECT_EQ(p.value("kaisha_seconds_bucket", {{"op", "x"}, {"le", "+Inf"}}), 4);
  EXPECT_EQ(p.value("kaisha_seconds_count", {{"op", "x"}}), 4);
  EXPECT_DOUBLE_EQ(*p.value("kaisha_seconds_sum", {{"op", "x"}}), 8.05);
}

TEST(MetricsRegistry, LabelValuesInAnyLanguageAreEscapedAndReadBack) {
  MetricsRegistry r;
  const std::string odd = "社長 \"CEO\" 🚀\\n\nline";
  r.counter("kaisha_by_agent_total", "By agent\nsecond line \\", {"agent"}).with({odd}).add();
  auto p = parse(r);
  EXPECT_EQ(p.value("kaisha_by_agent_total", {{"agent", odd}}), 1);
  EXPECT_EQ(p.help["kaisha_by_agent_total"], "By agent\nsecond line \\");
}

TEST(MetricsRegistry, AFamilyHoldsAtMostItsChildrenAndCountsTheRestAsOther) {
  MetricsRegistry r;
  auto& f = r.counter("kaisha_names_total", "Names", {"name"}, 3);
  for (int i = 0; i < 10; ++i) f.with({"agent-" + std::to_string(i)}).add();
  auto p = parse(r);
  EXPECT_EQ(p.value("kaisha_names_total", {{"name", "agent-0"}}), 1);
  EXPECT_EQ(p.value("kaisha_names_total", {{"name", "agent-2"}}), 1);
  EXPECT_FALSE(p.value("kaisha_names_total", {{"name", "agent-3"}}).has_value());
  EXPECT_EQ(p.value("kaisha_names_total", {{"name", "other"}}), 7);
  EXPECT_EQ(p.samples.size(), 4u);
}

TEST(MetricsRegistry, DeclaringTwiceReturnsTheSameFamilyAndAnotherTypeIsRefused) {
  MetricsRegistry r;
  auto& a = r.counter("kaisha_x_total", "X");
  auto& b = r.counter("kaisha_x_total", "ignored");
  EXPECT_EQ(&a, &b);
  EXPECT_THROW(r.gauge("kaisha_x_total", "X"), std::logic_error);
  EXPECT_THROW(r.counter("0bad", "X"), std::logic_error);
  EXPECT_THROW(r.counter("bad-name", "X"), std::logic_error);
}

TEST(MetricsRegistry, CollectorsReportAtScrapeTimeUntilTheirHandleIsGone) {
  MetricsRegistry r;
  double level = 4;
  auto handle = r.collector("kaisha_level", "Level", MetricType::gauge, {"ledger"}, [&] {
    return std::vector<Sample>{{{"expense"}, level}};
  });
  EXPECT_EQ(parse(r).value("kaisha_level", {{"ledger", "expense"}}), 4);
  level = 9;
  EXPECT_EQ(parse(r).value("kaisha_level", {{"ledger", "expense"}}), 9);
  auto failing = r.collector("kaisha_broken", "Throws", MetricType::gauge, {},
                             []() -> std::vector<Sample> { throw std::runtime_error("boom"); });
  EXPECT_FALSE(parse(r).value("kaisha_broken").has_value());
  handle.reset();
  EXPECT_EQ(r.render().find("kaisha_level"), std::string::npos);
}

TEST(MetricsRegistry, ConcurrentUpdatesAreAllCounted) {
  MetricsRegistry r;
  auto& c = r.counter("kaisha_n_total", "N").with();
  auto& h = r.histogram("kaisha_h", "H", {}, {1}).with();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.add();
        h.observe(0.5);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.count(), 40000u);
  EXPECT_EQ(h.sum(), 20000);
}

TEST(MetricsRegistry, ValuesAreWrittenAsPrometheusReadsThem) {
  EXPECT_EQ(format_value(3), "3");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(format_value(HUGE_VAL), "+Inf");
  EXPECT_EQ(format_value(-HUGE_VAL), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(PrometheusText, MalformedLinesAreRefusedWithTheirLineNumber) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"a 1", "end with a newline"},
      {"a 1\n{x=\"1\"} 2\n", "line 2"},
      {"a{x=1} 2\n", "not quoted"},
      {"a{x=\"1} 2\n", "not closed"},
      {"a{x=\"\\q\"} 2\n", "bad escape"},
      {"a{x=\"1\",x=\"2\"} 2\n", "given twice"},
      {"a abc\n", "not a number"},
      {"a\n", "no value"},
      {"# TYPE a widget\n", "unknown metric type"},
      {"# TYPE a gauge\n# TYPE a gauge\n", "second TYPE"},
      {"a 1 12 extra\n", "after the timestamp"},
  };
  for (const auto& c : cases) {
    auto p = parse_prometheus_text(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << c.text << " -> " << p.error().message;
  }
  auto ok = parse_prometheus_text("# a comment\na{b=\"c\"} 1.5 1700000000000\n\nz +Inf\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->value("a", {{"b", "c"}}), 1.5);
  EXPECT_EQ(ok->value("z"), HUGE_VAL);
}

}  // namespace
}  // namespace kaisha::telemetry
