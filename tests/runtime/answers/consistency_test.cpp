#include "runtime/answers/consistency.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace {

TEST(Consistency, TwoOfThreeStopWithTheMajority) {
  Consistency c = check_consistency({"A", "A", "B"});
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.majority, "A");
  EXPECT_EQ(c.index, 0u);
  EXPECT_EQ(c.agreeing, 2u);
  EXPECT_EQ(c.total, 3u);
  // The majority need not come first.
  Consistency later = check_consistency({"B", "A", "A"});
  EXPECT_TRUE(later.stop);
  EXPECT_EQ(later.majority, "A");
  EXPECT_EQ(later.index, 1u);
}

// Identical answers agree: HALO's reference skipped them, so [A, A] never stopped.
TEST(Consistency, IdenticalAnswersAgree) {
  Consistency c = check_consistency({"A", "A"});
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.agreeing, 2u);
}

TEST(Consistency, OneOfTwoDoesNotStop) {
  Consistency c = check_consistency({"A", "B"});
  EXPECT_FALSE(c.stop);
  EXPECT_EQ(c.majority, "A");  // a tie goes to the earliest answer
  EXPECT_EQ(c.index, 0u);
  EXPECT_EQ(c.agreeing, 1u);
}

TEST(Consistency, OneAnswerNeverStops) {
  Consistency c = check_consistency({"A"});
  EXPECT_FALSE(c.stop);
  EXPECT_EQ(c.majority, "A");
  EXPECT_EQ(c.agreeing, 1u);
}

TEST(Consistency, NoAnswers) {
  Consistency c = check_consistency(std::vector<std::string>{});
  EXPECT_FALSE(c.stop);
  EXPECT_EQ(c.majority, "");
  EXPECT_EQ(c.agreeing, 0u);
  EXPECT_EQ(c.total, 0u);
}

TEST(Consistency, TieGoesToTheEarliest) {
  Consistency c = check_consistency({"B", "A", "B", "A"});
  EXPECT_EQ(c.majority, "B");
  EXPECT_EQ(c.index, 0u);
  EXPECT_EQ(c.agreeing, 2u);
  EXPECT_FALSE(c.stop);  // 2/4 < 0.66
}

TEST(Consistency, ThresholdIsConfigurable) {
  ConsistencyOptions half;
  half.threshold = 0.5;
  EXPECT_TRUE(check_consistency({"A", "B", "A", "C"}, half).stop);  // 2/4
  EXPECT_FALSE(check_consistency({"A", "B", "A", "C"}).stop);       // default 0.66
  EXPECT_TRUE(check_consistency({"A", "A", "B"}).stop);             // 2/3 >= 0.66
  ConsistencyOptions strict;
  strict.threshold = 0.7;
  EXPECT_FALSE(check_consistency({"A", "A", "B"}, strict).stop);      // 2/3 < 0.7
  EXPECT_TRUE(check_consistency({"A", "A", "A", "B"}, strict).stop);  // 3/4
}

TEST(Consistency, ExactTrimsWhitespace) { EXPECT_TRUE(check_consistency({"C", " C\n", "D"}).stop); }

TEST(Consistency, LatexEquivalence) {
  ConsistencyOptions latex{Equivalence::latex};
  Consistency c = check_consistency({R"(\frac{1}{2})", "7", "boxed{0.5}"}, latex);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.majority, R"(\frac{1}{2})");
  EXPECT_EQ(c.agreeing, 2u);
  EXPECT_FALSE(check_consistency({R"(\frac{1}{2})", "7", "boxed{0.5}"}).stop);  // not exactly equal
}

TEST(Consistency, BleuEquivalence) {
  ConsistencyOptions bleu{Equivalence::bleu};
  std::vector<std::string> code = {"def f(x):\n    return x * 2\n", "def f(x): return x*2", "print('hello')"};
  Consistency c = check_consistency(code, bleu);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.index, 0u);
  EXPECT_EQ(c.agreeing, 2u);
  bleu.bleu_threshold = 101;  // nothing but identical texts can match
  EXPECT_FALSE(check_consistency(code, bleu).stop);
}

TEST(Consistency, CustomMatcherIsAskedForDistinctPairsOnly) {
  int calls = 0;
  Consistency c = check_consistency(
      {"x", "y", "z"},
      [&](std::string_view a, std::string_view b) {
        ++calls;
        EXPECT_NE(a, b);
        return true;
      },
      0.66);
  EXPECT_EQ(calls, 6);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.agreeing, 3u);
}

}  // namespace
}  // namespace kaisha::answers
