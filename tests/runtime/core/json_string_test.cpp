#include "runtime/core/json_string.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "runtime/core/json_text.hpp"

namespace kaisha {
namespace {

TEST(JsonString, WritesWhatDumpTextWritesForAnyBytes) {
  const std::string cases[] = {"",
                               "plain",
                               "quote \" and backslash \\",
                               "tab\tnew\nline\r\b\f",
                               std::string("nul\0x", 5),
                               "\x01\x1f\x7f",
                               "日本語 🚀",
                               "bad \xff\xfe bytes",
                               "cut \xe6\x97",
                               "\xc0\xaf overlong"};
  for (const auto& c : cases) {
    std::string out;
    append_json_string(out, c);
    EXPECT_EQ(out, dump_text(json(c))) << c;
    EXPECT_EQ(json::parse(out).get<std::string>(), json::parse(dump_text(json(c))).get<std::string>());
  }
}

// Plain text is scanned eight bytes at a time: every special byte at every
// offset of strings around a word's length must still be found.
TEST(JsonString, FindsEverySpecialByteAtEveryOffset) {
  const std::string specials[] = {
      "\"",       "\\", "\n", std::string("\0", 1), "\x1f", "\x7f", "\xe6\x97\xa5", "\xf0\x9f\x9a\x80", "\xff",
      "\xe6\x97", " ",  "~"};
  for (const auto& special : specials)
    for (size_t length = 0; length <= 20; ++length)
      for (size_t at = 0; at <= length; ++at) {
        std::string text(length, 'a');
        text.insert(at, special);
        std::string out = "x";  // appends after what is there
        append_json_string(out, text);
        ASSERT_EQ(out, "x" + dump_text(json(text))) << "special at " << at << " of " << length;
      }
}

TEST(JsonString, RandomBytesAreWrittenAsDumpTextWritesThem) {
  std::mt19937_64 rng(7);
  const char alphabet[] = {'a',    'Z',    ' ',    '"',    '\\',   '\n',   '\x01',
                           '\x7f', '\x80', '\xc3', '\xa9', '\xe6', '\x97', '\xff'};
  for (int i = 0; i < 5000; ++i) {
    std::string text(rng() % 40, 'a');
    for (char& c : text)
      if (rng() % 4 == 0) c = alphabet[rng() % sizeof alphabet];
    std::string out;
    append_json_string(out, text);
    ASSERT_EQ(out, dump_text(json(text)));
  }
}

TEST(JsonString, AnyValueIsWrittenAsDumpTextWritesIt) {
  const json values[] = {
      nullptr,
      true,
      false,
      0,
      -7,
      INT64_MIN,
      UINT64_MAX,
      0.0,
      -0.0,
      0.1,
      1.0 / 3,
      100.0,
      1e21,
      1e-7,
      2.5e-5,
      123456789012345.0,
      1e15,
      1e16,
      std::nan(""),
      HUGE_VAL,
      "text",
      "日本語 \xff",
      json::array(),
      json::object(),
      json::parse(R"({"b":[1,2.5,{"c":null}],"a":"x","budget":{"current_expense":0.30000000000000004,"n":3}})")};
  for (const auto& v : values) {
    std::string out;
    append_json(out, v);
    EXPECT_EQ(out, dump_text(v)) << v.dump();
  }
}

TEST(JsonString, DoublesReadBackAsTheSameValueAndMostlyAsNlohmannSpellsThem) {
  std::mt19937_64 rng(42);
  int same_text = 0;
  for (int i = 0; i < 20000; ++i) {
    double d;
    const uint64_t bits = rng();
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    if (i % 2) d = static_cast<double>(rng() % 100000) / 1000.0;  // ledger-like amounts too
    std::string out;
    append_json(out, json(d));
    EXPECT_EQ(json::parse(out).get<double>(), d) << out;
    same_text += out == dump_text(json(d));
  }
  EXPECT_GT(same_text, 19000);  // the spelling differs only where nlohmann's digits are not the shortest
}

}  // namespace
}  // namespace kaisha
