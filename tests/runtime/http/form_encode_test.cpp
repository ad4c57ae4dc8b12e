#include "runtime/http/form_encode.hpp"

#include <gtest/gtest.h>

namespace kaisha::http {
namespace {

TEST(FormEncode, KeepsUnreservedBytesAndEncodesTheRest) {
  EXPECT_EQ(form_encode("a b&c"), "a+b%26c");
  EXPECT_EQ(form_encode("t-2026_11.29~x"), "t-2026_11.29~x");
  EXPECT_EQ(form_encode("日"), "%E6%97%A5");
  EXPECT_EQ(form_encode("=/?#%+"), "%3D%2F%3F%23%25%2B");
  EXPECT_EQ(form_encode(""), "");
}

}  // namespace
}  // namespace kaisha::http
