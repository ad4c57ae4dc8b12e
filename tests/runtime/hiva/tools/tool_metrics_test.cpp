// The per-version tool metrics: counted per code hash, bounded, thread-safe.
#include "runtime/hiva/tools/tool_metrics.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace kaisha::hiva {
namespace tool_metrics_test {

TEST(HivaToolMetrics, CountsCallsRunsFailuresTimeoutsAndTimePerVersion) {
  ToolMetrics m;
  const std::string a = ToolMetrics::code_hash("def tool_function(x): return x");
  const std::string b = ToolMetrics::code_hash("def tool_function(x): return x + '!'");
  ASSERT_NE(a, b);
  EXPECT_EQ(a, ToolMetrics::code_hash("def tool_function(x): return x"));  // stable
  m.record_call(a);
  m.record_run(a, /*failed=*/true, /*timed_out=*/true, 1000);
  m.record_run(a, /*failed=*/false, /*timed_out=*/false, 20);
  m.record_call(b);
  m.record_run(b, /*failed=*/true, /*timed_out=*/false, 5);

  const ToolVersionMetrics ma = m.of(a);
  EXPECT_EQ(ma.calls, 1);
  EXPECT_EQ(ma.runs, 2);
  EXPECT_EQ(ma.failures, 1);
  EXPECT_EQ(ma.timeouts, 1);
  EXPECT_EQ(ma.total_ms, 1020);
  EXPECT_EQ(m.of(b).failures, 1);
  EXPECT_EQ(m.of(b).timeouts, 0);
  EXPECT_EQ(m.of("unknown").runs, 0);

  const json j = m.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[a], (json{{"calls", 1}, {"runs", 2}, {"failures", 1}, {"timeouts", 1}, {"total_ms", 1020}}));
}

TEST(HivaToolMetrics, ForgetsTheVersionUsedLeastRecentlyWhenFull) {
  ToolMetrics m(2);
  m.record_call("a");
  m.record_call("b");
  m.record_call("a");  // b is now the least recently used
  m.record_call("c");
  const json j = m.to_json();
  EXPECT_EQ(j.size(), 2u);
  EXPECT_TRUE(j.contains("a"));
  EXPECT_FALSE(j.contains("b"));
  EXPECT_TRUE(j.contains("c"));
  EXPECT_EQ(m.of("a").calls, 2);
}

TEST(HivaToolMetrics, CountsEveryRunFromManyThreads) {
  ToolMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) m.record_run("h", i % 2 == 0, false, 1);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(m.of("h").runs, 4000);
  EXPECT_EQ(m.of("h").failures, 2000);
  EXPECT_EQ(m.of("h").total_ms, 4000);
}

}  // namespace tool_metrics_test
}  // namespace kaisha::hiva
