#include "runtime/halo/replies/reply_json.hpp"

#include <gtest/gtest.h>

#include "runtime/halo/replies/judge_label.hpp"

namespace kaisha::halo {
namespace {

TEST(ReplyJson, SaysWhereTheInvalidByteIs) {
  EXPECT_EQ(reply::invalid_utf8_at("abc"), std::nullopt);
  EXPECT_EQ(reply::invalid_utf8_at("caf\xC3\xA9"), std::nullopt);
  EXPECT_EQ(reply::invalid_utf8_at("ab\xFF"), 3u);
  EXPECT_EQ(reply::invalid_utf8_at("\xC3"), 1u);           // cut short
  EXPECT_EQ(reply::invalid_utf8_at("a\xED\xA0\x80"), 2u);  // a surrogate
  Result<json> r = reply::object("{\"status\": \"ok\xFF\"}", "status");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "invalid UTF-8 at byte 15 (0xFF)");
}

TEST(ReplyJson, ToleratesFencesAndProse) {
  Result<json> fenced = reply::object("Here:\n```json\n{\"status\": \"fail\"}\n```\n", "status");
  ASSERT_TRUE(fenced.ok());
  EXPECT_EQ((*fenced)["status"], "fail");
  Result<json> prose = reply::object("My verdict is {\"status\": \"fail\"} as asked.", "status");
  ASSERT_TRUE(prose.ok());
  EXPECT_EQ((*prose)["status"], "fail");
}

// LaTeX or code braces before the answer object: the object around the key is read.
TEST(ReplyJson, FindsTheObjectHoldingTheKeyAfterOtherBraces) {
  Result<json> r = reply::object(R"(We get \frac{1}{2}, so {"answer": "boxed{\\frac{1}{2}}"})", "answer");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["answer"], R"(boxed{\frac{1}{2}})");
  Result<json> empty_first = reply::object(R"(In C, {} is a block. {"status": "success"})", "status");
  ASSERT_TRUE(empty_first.ok());
  EXPECT_EQ((*empty_first)["status"], "success");
  // The key quoted in prose (not followed by ':') is skipped.
  Result<json> quoted = reply::object(R"(a {b} then {"status": "fail"} and "status" again)", "status");
  ASSERT_TRUE(quoted.ok());
  EXPECT_EQ((*quoted)["status"], "fail");
}

TEST(ReplyJson, MissingListsTheKeysPresent) {
  json many = json::parse(R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7})");
  EXPECT_EQ(reply::missing(many, "status"),
            R"(key "status" is missing (the object has "a", "b", "c", "d", "e", "f", ...))");
}

TEST(ReplyJson, ProblemsArePrefixedOnceAndBounded) {
  reply::Problems p("judge");
  EXPECT_EQ(p.text(), std::nullopt);
  for (int i = 0; i < 10; ++i) p.add("finding " + std::to_string(i));
  std::string text = *p.text();
  EXPECT_EQ(text.rfind("judge reply: finding 0; finding 1", 0), 0u) << text;
  EXPECT_TRUE(text.ends_with("finding 7; and 2 more")) << text;
}

// A 10 MB reply is read in linear time (a quadratic scan would take hours
// and hit the test's timeout).
TEST(ReplyJson, TenMegabyteRepliesAreLinear) {
  const size_t mb10 = 10u << 20;
  std::string prose(mb10, 'x');
  EXPECT_TRUE(parse_judge_label(prose).defaulted);
  std::string braces;
  braces.reserve(mb10);
  while (braces.size() < mb10) braces += "{\"status\" ";  // the key again and again, never a ':'
  Parsed<NodeLabel> many_keys = parse_judge_label(braces);
  EXPECT_TRUE(many_keys.defaulted);
  std::string big_value = "{\"status\": \"" + std::string(mb10, 'a') + "\"}";
  Parsed<NodeLabel> big = parse_judge_label(big_value);
  EXPECT_TRUE(big.defaulted);
  EXPECT_LT(big.problem->size(), 400u) << "the value is quoted cut short";
  std::string fenced = std::string(mb10, '`') + "{\"status\": \"fail\"}";
  EXPECT_EQ(parse_judge_label(fenced).value, NodeLabel::fail);
}

}  // namespace
}  // namespace kaisha::halo
