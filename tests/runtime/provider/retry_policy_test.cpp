#include "runtime/provider/retry_policy.hpp"

#include <gtest/gtest.h>

namespace kaisha::provider {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicy, FullJitterStaysWithinExponentialBound) {
  config::RetryConfig cfg{5, 100, 1000};
  RetryPolicy p(cfg, 42);
  for (int attempt = 1; attempt <= 6; ++attempt) {
    const int64_t bound = std::min<int64_t>(1000, 100LL << (attempt - 1));
    int64_t max_seen = 0;
    for (int i = 0; i < 500; ++i) {
      auto d = p.backoff(attempt).count();
      ASSERT_GE(d, 0);
      ASSERT_LE(d, bound) << "attempt " << attempt;
      max_seen = std::max(max_seen, d);
    }
    EXPECT_GT(max_seen, bound / 2) << "jitter should use the whole range";
  }
}

// InfiAgent's schedule (infiagent.md §10 item 65): 10 s first, x1.5 after.
TEST(RetryPolicy, TheMultiplierSetsHowFastTheBoundGrows) {
  config::RetryConfig cfg{6, 10000, 60000};
  cfg.multiplier = 1.5;
  RetryPolicy p(cfg, 7);
  const int64_t bounds[] = {10000, 15000, 22500, 33750, 50625, 60000};
  for (int attempt = 1; attempt <= 6; ++attempt) {
    int64_t max_seen = 0;
    for (int i = 0; i < 500; ++i) max_seen = std::max<int64_t>(max_seen, p.backoff(attempt).count());
    EXPECT_LE(max_seen, bounds[attempt - 1]) << attempt;
    EXPECT_GT(max_seen, bounds[attempt - 1] * 9 / 10) << attempt;
  }
}

TEST(RetryPolicy, RetryAfterOverridesButIsCapped) {
  RetryPolicy p(config::RetryConfig{4, 500, 8000, 30000}, 1);
  EXPECT_EQ(p.backoff(1, milliseconds(2000)), milliseconds(2000));
  EXPECT_EQ(p.backoff(1, milliseconds(600000)), milliseconds(30000));
  EXPECT_EQ(p.backoff(3, milliseconds(0)), milliseconds(0));
}

// The server's Retry-After is honoured beyond max_delay_ms (the backoff's own
// cap), up to the separate ceiling max_retry_after_ms.
TEST(RetryPolicy, RetryAfterIsHonouredBeyondMaxDelay) {
  RetryPolicy p(config::RetryConfig{4, 500, 8000, 60000}, 1);
  EXPECT_EQ(p.backoff(1, milliseconds(20000)), milliseconds(20000));
  EXPECT_EQ(p.backoff(2, milliseconds(60000)), milliseconds(60000));
  EXPECT_EQ(p.backoff(2, milliseconds(90000)), milliseconds(60000));
  // A ceiling below max_delay_ms is raised to it.
  RetryPolicy low(config::RetryConfig{4, 500, 8000, 100}, 1);
  EXPECT_EQ(low.backoff(1, milliseconds(5000)), milliseconds(5000));
}

TEST(RetryPolicy, NoOverflowForManyAttempts) {
  RetryPolicy p(config::RetryConfig{100, 500, 8000}, 7);
  EXPECT_LE(p.backoff(90).count(), 8000);
}

TEST(RetryPolicy, SanitisesConfig) {
  RetryPolicy p(config::RetryConfig{0, -5, -1}, 3);
  EXPECT_EQ(p.max_attempts(), 1);
  EXPECT_EQ(p.backoff(1).count(), 0);
}

TEST(RetryPolicy, RetryableStatuses) {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 599}) EXPECT_TRUE(RetryPolicy::retryable_status(s)) << s;
  for (int s : {200, 400, 401, 403, 404, 413, 422}) EXPECT_FALSE(RetryPolicy::retryable_status(s)) << s;
}

}  // namespace
}  // namespace kaisha::provider
