#include "runtime/halo/replies/score_reply.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

TEST(ScoreReply, ReadsANumberOrNumericString) {
  Parsed<double> p = parse_score(R"({"score": 0.55})");
  EXPECT_EQ(p.value, 0.55);
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
  EXPECT_EQ(parse_score(R"({"score": " 0.7 "})").value, 0.7);
  EXPECT_EQ(parse_score(R"({"score": 1})").value, 1.0);
  EXPECT_EQ(parse_score(R"({"score": "+0.25"})").value, 0.25);
  EXPECT_EQ(parse_score(R"({"score": 0})").value, 0.0);
}

TEST(ScoreReply, RoundsToFourDecimals) {
  EXPECT_EQ(parse_score(R"({"score": 0.123456})").value, 0.1235);
  EXPECT_EQ(parse_score(R"({"score": "0.99996"})").value, 1.0);
  EXPECT_EQ(parse_score(R"({"score": 0.00004})").value, 0.0);
  EXPECT_FALSE(std::signbit(parse_score(R"({"score": -0.0})").value));
}

TEST(ScoreReply, ClampsIntoTheUnitInterval) {
  Parsed<double> high = parse_score(R"({"score": 1.7})");
  EXPECT_EQ(high.value, 1.0);
  EXPECT_FALSE(high.defaulted);
  EXPECT_EQ(*high.problem, "scorer reply: \"score\" is 1.7, outside [0, 1]; clamped to 1");
  Parsed<double> low = parse_score(R"({"score": "-3"})");
  EXPECT_EQ(low.value, 0.0);
  EXPECT_FALSE(low.defaulted);
  EXPECT_EQ(parse_score(R"({"score": 85})").value, 1.0);  // a percentage is still clamped, not divided
}

TEST(ScoreReply, NotANumberIsTheDefault) {
  for (const char* reply : {R"({"score": "NaN"})", R"({"score": "inf"})", R"({"score": "-infinity"})",
                            R"({"score": "high"})", R"({"score": "0.5x"})", R"({"score": ""})", R"({"score": true})",
                            R"({"score": null})", R"({"score": [0.9]})", R"({"score": 1e999})"}) {
    Parsed<double> p = parse_score(reply);
    EXPECT_EQ(p.value, 0.5) << reply;
    EXPECT_TRUE(p.defaulted) << reply;
    ASSERT_TRUE(p.problem.has_value()) << reply;
    EXPECT_TRUE(p.problem->ends_with("the score is 0.5")) << *p.problem;
  }
  EXPECT_NE(parse_score(R"({"score": "nan"})").problem->find("\"score\" is nan, not a finite number"),
            std::string::npos);
  EXPECT_NE(parse_score(R"({"score": true})").problem->find("key \"score\" is a boolean, expected a number in [0, 1]"),
            std::string::npos);
}

TEST(ScoreReply, MalformedRepliesAreTheDefault) {
  for (const testing::Malformed& m : testing::malformed_replies("score")) {
    Parsed<double> p = parse_score(m.reply);
    EXPECT_EQ(p.value, 0.5) << m.name;
    EXPECT_TRUE(p.defaulted) << m.name;
    ASSERT_TRUE(p.problem.has_value()) << m.name;
    EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo
