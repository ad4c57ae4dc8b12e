#include "runtime/http/retry_after.hpp"

#include <gtest/gtest.h>

namespace kaisha::http {
namespace {

using std::chrono::milliseconds;

std::chrono::system_clock::time_point at(time_t t) { return std::chrono::system_clock::from_time_t(t); }

TEST(RetryAfter, Seconds) {
  EXPECT_EQ(parse_retry_after("0"), milliseconds(0));
  EXPECT_EQ(parse_retry_after("2"), milliseconds(2000));
  EXPECT_EQ(parse_retry_after("  120 "), milliseconds(120000));
  EXPECT_EQ(parse_retry_after("1.5"), milliseconds(1500));
}

TEST(RetryAfter, RejectsGarbage) {
  EXPECT_FALSE(parse_retry_after(""));
  EXPECT_FALSE(parse_retry_after("   "));
  EXPECT_FALSE(parse_retry_after("-5"));
  EXPECT_FALSE(parse_retry_after("12abc"));
  EXPECT_FALSE(parse_retry_after("soon"));
  EXPECT_FALSE(parse_retry_after("1.2.3"));
}

TEST(RetryAfter, ImfFixdate) {
  // Sun, 06 Nov 1994 08:49:37 GMT == 784111777
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", at(784111777 - 30)), milliseconds(30000));
}

TEST(RetryAfter, ObsoleteDateForms) {
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", at(784111777 - 5)), milliseconds(5000));
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", at(784111777 - 7)), milliseconds(7000));
}

TEST(RetryAfter, PastDateIsZero) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", at(784111777 + 100)), milliseconds(0));
}

TEST(RetryAfter, HugeSecondsAreClamped) {
  auto d = parse_retry_after("99999999999999999999");
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, milliseconds(7LL * 24 * 3600 * 1000));
}

}  // namespace
}  // namespace kaisha::http
