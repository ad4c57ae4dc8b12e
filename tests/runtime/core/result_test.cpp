#include "runtime/core/result.hpp"

#include <gtest/gtest.h>

namespace kaisha {
namespace {

TEST(Result, HoldsValueOrError) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  Result<int> bad = Error{"config", "bad key"};
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "config");
  EXPECT_EQ(bad.error().message, "bad key");
}

TEST(Status, DefaultsToOk) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = Error{"x", "y"};
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace kaisha
