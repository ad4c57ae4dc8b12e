#include "runtime/core/utf8.hpp"

#include <gtest/gtest.h>

#include "runtime/core/json.hpp"

namespace kaisha::utf8 {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";
// "日本語" (3 x 3 bytes), "😀" (4 bytes), "é" (2 bytes).
const std::string kJa = "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E";
const std::string kEmoji = "\xF0\x9F\x98\x80";
const std::string kE = "\xC3\xA9";

TEST(Utf8, ValidAcceptsWellFormedText) {
  EXPECT_TRUE(valid(""));
  EXPECT_TRUE(valid("plain ascii"));
  EXPECT_TRUE(valid(kJa + kEmoji + kE));
  EXPECT_TRUE(valid("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
  EXPECT_TRUE(valid("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
}

TEST(Utf8, ValidRejectsEveryIllFormedClass) {
  EXPECT_FALSE(valid("\x80"));              // stray continuation
  EXPECT_FALSE(valid("\xC3"));              // cut short
  EXPECT_FALSE(valid(kJa.substr(0, 4)));    // cut inside a character
  EXPECT_FALSE(valid("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(valid("\xC1\xBF"));          // overlong
  EXPECT_FALSE(valid("\xE0\x80\xAF"));      // overlong, 3 bytes
  EXPECT_FALSE(valid("\xF0\x80\x80\xAF"));  // overlong, 4 bytes
  EXPECT_FALSE(valid("\xED\xA0\x80"));      // U+D800, a surrogate
  EXPECT_FALSE(valid("\xED\xBF\xBF"));      // U+DFFF
  EXPECT_FALSE(valid("\xF4\x90\x80\x80"));  // U+110000, out of range
  EXPECT_FALSE(valid("\xF5\x80\x80\x80"));  // lead byte above F4
  EXPECT_FALSE(valid("\xFF"));
  EXPECT_FALSE(
      valid("ab\xE6\x97"
            "c"));  // lead, one continuation, then ASCII
}

TEST(Utf8, DecodeGivesCodePointsAndMaximalSubparts) {
  Decoded d = decode(kEmoji);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.code_point, U'\U0001F600');
  EXPECT_EQ(d.length, 4u);
  d = decode(
      "\xE6\x97"
      "x");  // a 3-byte sequence missing its last byte
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.length, 2u);
  d = decode("\xED\xA0\x80");  // surrogate: the lead alone is the subpart
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.length, 1u);
}

TEST(Utf8, RepairReplacesEachMaximalSubpartWithOneReplacementCharacter) {
  EXPECT_EQ(repair(kJa), kJa);
  EXPECT_EQ(repair("a\xFF"
                   "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(repair("a\xE6\x97"
                   "b"),
            "a" + kFffd + "b");                              // truncated sequence: one U+FFFD
  EXPECT_EQ(repair("\xC0\xAF"), kFffd + kFffd);              // overlong: each byte
  EXPECT_EQ(repair("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // surrogate
  EXPECT_EQ(repair("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(repair(kJa.substr(0, 7)), kJa.substr(0, 6) + kFffd);  // cut at the end
  for (std::string bad : {"\x80", "\xC3", "\xED\xA0\x80", "x\xF0\x9F\x98", "\xFE\xFF"}) {
    std::string fixed = repair(bad);
    EXPECT_TRUE(valid(fixed)) << fixed;
    EXPECT_NO_THROW((void)json(fixed).dump());
  }
}

TEST(Utf8, RepairAsLatin1KeepsLegacyCharsetLetters) {
  EXPECT_EQ(repair("caf\xE9", Invalid::latin1), "caf" + kE);
  // Well-formed sequences in the same text stay as they are.
  EXPECT_EQ(repair(kJa + " caf\xE9", Invalid::latin1), kJa + " caf" + kE);
}

TEST(Utf8, AppendEncodesAndRefusesSurrogates) {
  std::string s;
  append(s, U'\U0001F600');
  append(s, 0xE9);
  append(s, 0xD800);
  append(s, 0x110000);
  EXPECT_EQ(s, kEmoji + kE + kFffd + kFffd);
}

TEST(Utf8, TruncateNeverSplitsACharacter) {
  const std::string text = "ab" + kJa + kEmoji;  // 2 + 9 + 4 bytes
  for (size_t n = 0; n <= text.size() + 2; ++n) {
    std::string cut = truncate(text, n);
    EXPECT_LE(cut.size(), n);
    EXPECT_TRUE(valid(cut)) << "cut at " << n;
    EXPECT_EQ(cut, text.substr(0, cut.size()));
  }
  EXPECT_EQ(truncate(text, 4), "ab");  // inside 日
  EXPECT_EQ(truncate(text, 5), "ab\xE6\x97\xA5");
  EXPECT_EQ(truncate(text, 14), "ab" + kJa);  // inside the emoji
  EXPECT_EQ(truncate(text, 200), text);
}

TEST(Utf8, ShortenAddsTheEllipsisOnlyWhenItCut) {
  EXPECT_EQ(shorten("short", 10), "short");
  EXPECT_EQ(shorten(kJa, 4), "\xE6\x97\xA5\xE2\x80\xA6");
  EXPECT_EQ(shorten(kJa, 4, "..."), "\xE6\x97\xA5...");
  EXPECT_TRUE(valid(shorten(kEmoji + kEmoji, 5)));
}

TEST(Utf8, TailStartsAtACharacter) {
  const std::string text = kJa + kEmoji;
  for (size_t n = 0; n <= text.size(); ++n) {
    std::string end = tail(text, n);
    EXPECT_LE(end.size(), n);
    EXPECT_TRUE(valid(end)) << "tail of " << n;
    EXPECT_TRUE(text.ends_with(end));
  }
  EXPECT_EQ(tail(text, 5), kEmoji);
}

}  // namespace
}  // namespace kaisha::utf8
