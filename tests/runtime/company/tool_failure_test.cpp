// Tools that fail: errors classified (declared class first, then a run's
// kind, then the text), the retry policy (transient and repeatable only,
// bounded attempts, doubling capped backoff with a deterministic jitter), and the health score and
// circuit breaker on a clock the test moves.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/company/tool_health.hpp"
#include "runtime/company/tool_retry.hpp"

namespace kaisha::company {
namespace {

std::optional<ToolErrorClass> of(const std::string& message, json output = nullptr) {
  return classify_tool_error(ToolResult::error(message, std::move(output)));
}

TEST(ToolErrorClass, SuccessIsNoError) { EXPECT_EQ(classify_tool_error(ToolResult::success("ok")), std::nullopt); }

TEST(ToolErrorClass, TextDecidesWhenNothingIsDeclared) {
  EXPECT_EQ(of("The arguments of Calculator are not valid JSON. Call the tool again"), ToolErrorClass::invalid_input);
  EXPECT_EQ(of("Tool ReadFile is not granted to this agent; it may use: []"), ToolErrorClass::invalid_input);
  EXPECT_EQ(of("Tool Foo not found"), ToolErrorClass::invalid_input);
  EXPECT_EQ(of("the call timed out after 10000 ms"), ToolErrorClass::timeout);
  EXPECT_EQ(of("Service temporarily unavailable, try again later"), ToolErrorClass::transient);
  EXPECT_EQ(of("GetWebsite: HTTP 503 from example.org"), ToolErrorClass::transient);
  EXPECT_EQ(of("Connection refused"), ToolErrorClass::transient);
  EXPECT_EQ(of("error", "Rate limit exceeded"), ToolErrorClass::transient);  // the output's text counts too
  EXPECT_EQ(of("ZeroDivisionError: division by zero"), ToolErrorClass::permanent);
  EXPECT_EQ(of(""), ToolErrorClass::permanent);
}

TEST(ToolErrorClass, DeclaredClassAndRunKindWinOverText) {
  ToolResult r = with_error_class(ToolResult::error("temporarily unavailable"), ToolErrorClass::permanent);
  EXPECT_EQ(classify_tool_error(r), ToolErrorClass::permanent);
  EXPECT_EQ(r.to_json()["error_class"], "permanent");  // the model sees it too
  EXPECT_EQ(of("failed", json{{"error_class", "invalid_input"}}), ToolErrorClass::invalid_input);
  EXPECT_EQ(of("failed", json{{"error_class", "nonsense"}}), ToolErrorClass::permanent);  // unknown: ignored
  // HiVA's run kinds: a killed or crashed run may do better once more, a raised exception not.
  EXPECT_EQ(of("run failed", json{{"kind", "timeout"}}), ToolErrorClass::timeout);
  EXPECT_EQ(of("run failed", json{{"kind", "crash"}}), ToolErrorClass::transient);
  EXPECT_EQ(of("try again", json{{"kind", "tool_error"}}), ToolErrorClass::permanent);
  for (ToolErrorClass c :
       {ToolErrorClass::invalid_input, ToolErrorClass::timeout, ToolErrorClass::transient, ToolErrorClass::permanent})
    EXPECT_EQ(parse_tool_error_class(tool_error_class_name(c)), c);
}

TEST(ToolRetryPolicy, OnlyTransientErrorsOfRepeatableToolsWithinTheAttempts) {
  ToolRetryPolicy p;  // 3 attempts, 500 ms doubling, capped at 10 s
  p.jitter = 0;
  EXPECT_EQ(p.retry_after(ToolErrorClass::transient, true, 1, "c1"), 500);
  EXPECT_EQ(p.retry_after(ToolErrorClass::transient, true, 2, "c1"), 1000);
  EXPECT_EQ(p.retry_after(ToolErrorClass::transient, true, 3, "c1"), std::nullopt);   // the third was the last
  EXPECT_EQ(p.retry_after(ToolErrorClass::transient, false, 1, "c1"), std::nullopt);  // not safe to repeat
  EXPECT_EQ(p.retry_after(ToolErrorClass::timeout, true, 1, "c1"), std::nullopt);
  EXPECT_EQ(p.retry_after(ToolErrorClass::permanent, true, 1, "c1"), std::nullopt);
  EXPECT_EQ(p.retry_after(ToolErrorClass::invalid_input, true, 1, "c1"), std::nullopt);
  p.max_attempts = 1;
  EXPECT_EQ(p.retry_after(ToolErrorClass::transient, true, 1, "c1"), std::nullopt);
}

TEST(ToolRetryPolicy, BackoffDoublesUpToTheCap) {
  ToolRetryPolicy p{10, 2000, 5000, 0};
  EXPECT_EQ(p.delay_before_retry(1, "c1"), 2000);
  EXPECT_EQ(p.delay_before_retry(2, "c1"), 4000);
  EXPECT_EQ(p.delay_before_retry(3, "c1"), 5000);
  EXPECT_EQ(p.delay_before_retry(60, "c1"), 5000);  // no overflow however many
  EXPECT_EQ(p.backoff(60), 5000);
}

// The jitter takes at most its share off each wait, never adds to it, and
// depends only on the key and the attempt: the same call waits the same in
// every run (a resume), different calls spread out.
TEST(ToolRetryPolicy, JitterStaysWithinItsShareAndIsTheSameForTheSameCall) {
  ToolRetryPolicy p{10, 1000, 8000, 0.5};
  std::set<int64_t> firsts;
  for (int i = 0; i < 200; ++i) {
    const std::string key = "task-" + std::to_string(i) + "/Worker/c1";
    for (int attempt = 1; attempt <= 6; ++attempt) {
      const int64_t d = p.delay_before_retry(attempt, key);
      EXPECT_LE(d, p.backoff(attempt)) << key << " " << attempt;
      EXPECT_GE(d, p.backoff(attempt) / 2) << key << " " << attempt;
      EXPECT_EQ(p.delay_before_retry(attempt, key), d);  // deterministic
      const double u = retry_jitter_fraction(key, attempt);
      EXPECT_GE(u, 0.0);
      EXPECT_LT(u, 1.0);
    }
    firsts.insert(p.delay_before_retry(1, key));
  }
  // 200 calls do not all wait alike (a constant would give one value).
  EXPECT_GT(firsts.size(), 100u);
  // Spread over the whole range, not bunched at one end.
  EXPECT_LT(*firsts.begin(), 600);
  EXPECT_GT(*firsts.rbegin(), 900);
  // The attempt is part of the draw, and the value is fixed across builds
  // and platforms (FNV-1a and SplitMix64's finaliser): a journal written by
  // one build resumes under another with the same waits.
  EXPECT_NE(retry_jitter_fraction("t/Worker/c1", 1), retry_jitter_fraction("t/Worker/c1", 2));
  EXPECT_EQ(p.delay_before_retry(1, "t/Worker/c1"), 832);  // pinned: the value every build must give
  EXPECT_EQ(p.delay_before_retry(2, "t/Worker/c1"), 1098);

  // Full jitter may wait nothing at all but never more than the backoff;
  // none keeps the backoff exactly.
  ToolRetryPolicy full{10, 1000, 8000, 1.0};
  ToolRetryPolicy none{10, 1000, 8000, 0.0};
  for (int i = 0; i < 50; ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_LE(full.delay_before_retry(2, key), 2000);
    EXPECT_GE(full.delay_before_retry(2, key), 0);
    EXPECT_EQ(none.delay_before_retry(2, key), 2000);
  }
}

TEST(ToolHealth, BreakerOpensAfterConsecutiveFailuresThenHalfOpensAndCloses) {
  ToolHealth h(ToolBreakerSettings{3, 1000, 1});
  int64_t now = 100;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(h.admit("Flaky", now).allowed);
    EXPECT_EQ(h.record("Flaky", true, 10, now), std::nullopt);
  }
  ASSERT_TRUE(h.admit("Flaky", now).allowed);
  auto opened = h.record("Flaky", true, 10, now);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->from, BreakerState::closed);
  EXPECT_EQ(opened->to, BreakerState::open);
  EXPECT_EQ(opened->consecutive_failures, 3);
  EXPECT_EQ(opened->cooldown_ms, 1000);

  // Refused at once for the cool-down, with the time left.
  ToolAdmission a = h.admit("Flaky", now + 400);
  EXPECT_FALSE(a.allowed);
  EXPECT_EQ(a.state, BreakerState::open);
  EXPECT_EQ(a.retry_in_ms, 600);
  EXPECT_TRUE(h.admit("Other", now + 400).allowed);  // per tool

  // Half-open: one probe goes through, the next call waits for it.
  a = h.admit("Flaky", now + 1000);
  EXPECT_TRUE(a.allowed);
  EXPECT_EQ(a.state, BreakerState::half_open);
  EXPECT_EQ(a.from, BreakerState::open);
  EXPECT_FALSE(h.admit("Flaky", now + 1001).allowed);
  auto closed = h.record("Flaky", false, 10, now + 1002);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->from, BreakerState::half_open);
  EXPECT_EQ(closed->to, BreakerState::closed);
  EXPECT_TRUE(h.admit("Flaky", now + 1003).allowed);
  EXPECT_EQ(h.view("Flaky").state, BreakerState::closed);
}

TEST(ToolHealth, AFailedProbeOpensItAgain) {
  ToolHealth h(ToolBreakerSettings{1, 500, 1});
  h.admit("T", 0);
  ASSERT_TRUE(h.record("T", true, 1, 0));
  ASSERT_TRUE(h.admit("T", 500).allowed);
  auto again = h.record("T", true, 1, 510);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->from, BreakerState::half_open);
  EXPECT_EQ(again->to, BreakerState::open);
  ToolAdmission a = h.admit("T", 600);
  EXPECT_FALSE(a.allowed);
  EXPECT_EQ(a.retry_in_ms, 410);  // a new cool-down from the probe's end
}

TEST(ToolHealth, AProbeThatDidNotRunGivesItsPlaceBack) {
  ToolHealth h(ToolBreakerSettings{1, 100, 1});
  h.admit("T", 0);
  h.record("T", true, 1, 0);
  ASSERT_TRUE(h.admit("T", 100).allowed);
  EXPECT_FALSE(h.admit("T", 101).allowed);
  h.not_run("T");  // e.g. the budget refused it
  EXPECT_TRUE(h.admit("T", 102).allowed);
}

TEST(ToolHealth, ASuccessResetsTheCountAndZeroNeverOpens) {
  ToolHealth h(ToolBreakerSettings{2, 500, 1});
  h.record("T", true, 1, 0);
  h.record("T", false, 1, 0);
  EXPECT_EQ(h.record("T", true, 1, 0), std::nullopt);  // one in a row again
  ToolHealth never(ToolBreakerSettings{0, 500, 1});
  for (int i = 0; i < 50; ++i) EXPECT_EQ(never.record("T", true, 1, 0), std::nullopt);
  EXPECT_TRUE(never.admit("T", 0).allowed);
}

TEST(ToolHealth, ScoreIsSuccessRateTimesSpeed) {
  ToolHealth h;
  EXPECT_DOUBLE_EQ(h.view("Unused").health, 1.0);
  h.record("T", false, 100, 0, 1000);
  h.record("T", false, 300, 0, 1000);
  h.record("T", false, 200, 0, 1000);
  h.record("T", true, 200, 0, 1000);
  ToolHealthView v = h.view("T");
  EXPECT_EQ(v.calls, 4);
  EXPECT_EQ(v.failures, 1);
  EXPECT_DOUBLE_EQ(v.mean_latency_ms, 200.0);
  EXPECT_DOUBLE_EQ(v.health, 0.75 * (1 - 0.2));
  EXPECT_EQ(h.to_json()["T"]["breaker"], "closed");
  h.record("NoTimeout", true, 5, 0);
  h.record("NoTimeout", false, 5, 0);
  EXPECT_DOUBLE_EQ(h.view("NoTimeout").health, 0.5);
}

TEST(ToolHealth, KeepsAtMostMaxToolsForgettingTheLeastRecentlyUsed) {
  ToolBreakerSettings s;
  s.max_tools = 2;
  ToolHealth h(s);
  h.record("a", true, 1, 0);
  h.record("b", true, 1, 0);
  h.record("a", true, 1, 0);
  h.record("c", true, 1, 0);  // b goes
  EXPECT_EQ(h.view("b").calls, 0);
  EXPECT_EQ(h.view("a").calls, 2);
  EXPECT_EQ(h.to_json().size(), 2u);
}

TEST(ToolHealth, BreakerChangesReadAsOneLineEach) {
  EXPECT_EQ(breaker_text("fetch", BreakerChange{BreakerState::closed, BreakerState::open, 5, 60000}),
            "Tool `fetch` failed 5 times in a row: paused for 60 s (circuit breaker open)");
  EXPECT_EQ(breaker_text("fetch", BreakerChange{BreakerState::half_open, BreakerState::open, 6, 1500}),
            "Tool `fetch` failed its trial call: paused for 2 s (circuit breaker open)");
  EXPECT_EQ(breaker_text("fetch", BreakerChange{BreakerState::open, BreakerState::half_open, 5, 0}),
            "Tool `fetch` is tried again after its pause (circuit breaker half-open)");
  EXPECT_EQ(breaker_text("fetch", BreakerChange{BreakerState::half_open, BreakerState::closed, 0, 0}),
            "Tool `fetch` works again (circuit breaker closed)");
  EXPECT_DOUBLE_EQ(tool_health_score(0, 0, 0, 0), 1.0);
  EXPECT_DOUBLE_EQ(tool_health_score(4, 1, 500, 1000), 0.75 * 0.5);
  EXPECT_DOUBLE_EQ(tool_health_score(4, 1, 5000, 0), 0.75);  // no timeout known: the success rate
}

}  // namespace
}  // namespace kaisha::company
