#include "runtime/core/ascii_case.hpp"

#include <gtest/gtest.h>

namespace kaisha {
namespace {

TEST(AsciiLower, LowersAsciiLettersOnly) {
  EXPECT_EQ(ascii_lower("Content-Type: Application/JSON; Q=0.9 [X_Y]"), "content-type: application/json; q=0.9 [x_y]");
  EXPECT_EQ(ascii_lower(""), "");
  // '@' and '[' sit just before 'A' and after 'Z'.
  EXPECT_EQ(ascii_lower("@AZ[`az{"), "@az[`az{");
}

TEST(AsciiLower, LeavesUtf8BytesAsTheyAre) {
  // "É" (C3 89), "大阪", "Ä" (C3 84): no byte >= 0x80 changes, so the text stays valid UTF-8.
  EXPECT_EQ(ascii_lower("ÉCOLE 大阪 Ä"), "École 大阪 Ä");
  for (int b = 0x80; b <= 0xFF; ++b) {
    const char c = static_cast<char>(b);
    EXPECT_EQ(ascii_lower(c), c) << b;
  }
}

TEST(AsciiLower, OneCharacterAtATime) {
  for (int b = 0; b < 0x80; ++b) {
    const char c = static_cast<char>(b);
    const char want = (b >= 'A' && b <= 'Z') ? static_cast<char>(b + 32) : c;
    EXPECT_EQ(ascii_lower(c), want) << b;
  }
  const std::string s = "MiXeD";
  EXPECT_EQ(ascii_lower(std::string_view(s).substr(1, 3)), "ixe");
}

}  // namespace
}  // namespace kaisha
