#include "runtime/core/bounded_json.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kaisha {
namespace {

std::string nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

// 100,000 levels parse fine in nlohmann (its parser is iterative) but the
// first copy or dump of the value overflows the stack: refused before any
// value is built, with where it went too deep.
TEST(BoundedJson, RefusesDeepNestingBeforeBuildingAnything) {
  BoundedJson r = parse_bounded_json(R"({"input":)" + nested(100000) + "}");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, JsonParseError::Kind::too_deep);
  EXPECT_EQ(r.error.message, "nesting deeper than 128 levels at line 1, column 137");
  EXPECT_EQ(r.error.column, 137u);  // the 129th opening bracket
  EXPECT_TRUE(r.value.is_null());
  EXPECT_TRUE(parse_json_or_discarded(nested(100000, '{', '}')).is_discarded());
}

TEST(BoundedJson, AcceptsNestingUpToTheLimitAndCountsObjectsAndArraysAlike) {
  JsonLimits l;
  l.max_depth = 4;
  EXPECT_TRUE(parse_bounded_json(R"({"a":[{"b":[1]}]})", l).ok);
  BoundedJson deep = parse_bounded_json(R"({"a":[{"b":[{}]}]})", l);
  ASSERT_FALSE(deep.ok);
  EXPECT_EQ(deep.error.kind, JsonParseError::Kind::too_deep);
  // 128 levels, the default limit, survive a copy and a dump.
  BoundedJson ok = parse_bounded_json(nested(128));
  ASSERT_TRUE(ok.ok) << ok.error.message;
  json copy = ok.value;
  EXPECT_EQ(copy.dump(), nested(128));
  EXPECT_FALSE(parse_bounded_json(nested(129)).ok);
}

// Brackets inside strings (escaped quotes included) are text, not nesting.
TEST(BoundedJson, BracketsInsideStringsDoNotCount) {
  JsonLimits l;
  l.max_depth = 2;
  BoundedJson r = parse_bounded_json(R"({"a":["[[[[{{{{ \" [[[[ \\"]})", l);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value["a"][0], "[[[[{{{{ \" [[[[ \\");
}

TEST(BoundedJson, RefusesTooLargeTextsAndSaysWhereSyntaxBreaks) {
  JsonLimits l;
  l.max_bytes = 8;
  BoundedJson big = parse_bounded_json(R"({"a": 12345})", l);
  ASSERT_FALSE(big.ok);
  EXPECT_EQ(big.error.kind, JsonParseError::Kind::too_large);
  EXPECT_EQ(big.error.message, "JSON text of 12 bytes exceeds the limit of 8 bytes");

  BoundedJson bad = parse_bounded_json("{\n  \"a\": tru }");
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.kind, JsonParseError::Kind::syntax);
  EXPECT_EQ(bad.error.line, 2u);
  EXPECT_NE(bad.error.message.find("not valid JSON at line 2"), std::string::npos) << bad.error.message;
  EXPECT_TRUE(parse_json_or_discarded("").is_discarded());
}

// Text from outside becomes UTF-8 here: each ill-formed sequence in a string
// is one U+FFFD (a cut character, a stray byte, a surrogate), and the size
// limit is the text's own size, before repair.
TEST(BoundedJson, IllFormedUtf8IsRepairedNotRefused) {
  const std::string fffd = "\xEF\xBF\xBD";
  BoundedJson r = parse_bounded_json("{\"t\": \"\xE6\x97 a \xFF b \xED\xA0\x80\", \"ok\": \"\xE6\x97\xA5\"}");
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value["t"], fffd + " a " + fffd + " b " + fffd + fffd + fffd);
  EXPECT_EQ(r.value["ok"], "\xE6\x97\xA5");  // 日, untouched
  EXPECT_NO_THROW(r.value.dump());
  JsonLimits l;
  l.max_bytes = 8;
  EXPECT_TRUE(parse_bounded_json("\"\xFF\xFF\xFF\xFF\xFF\xFF\"", l).ok) << "8 bytes in, 20 after repair";
}

}  // namespace
}  // namespace kaisha
