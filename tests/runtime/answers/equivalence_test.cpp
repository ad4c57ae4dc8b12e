#include "runtime/answers/equivalence.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace {

TEST(ExactMatch, TrimsSurroundingWhitespaceOnly) {
  EXPECT_TRUE(exact_match("B", " B\n"));
  EXPECT_TRUE(exact_match("\t\r\n", ""));
  EXPECT_FALSE(exact_match("b", "B"));
  EXPECT_FALSE(exact_match("a b", "ab"));
}

TEST(Equivalent, DispatchesOnTheKind) {
  EXPECT_FALSE(equivalent(Equivalence::exact, "1/2", "0.5"));
  EXPECT_TRUE(equivalent(Equivalence::latex, "1/2", "0.5"));
  EXPECT_FALSE(equivalent(Equivalence::bleu, "1/2", "0.5"));
  EXPECT_TRUE(equivalent(Equivalence::bleu, "the cat sat on the mat", "the cat sat on a mat", 50));
  EXPECT_FALSE(equivalent(Equivalence::bleu, "the cat sat on the mat", "the cat sat on a mat"));
}

TEST(ParseEquivalence, ReadsTheThreeWords) {
  for (Equivalence e : {Equivalence::exact, Equivalence::latex, Equivalence::bleu}) {
    Result<Equivalence> parsed = parse_equivalence(to_string(e));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, e);
  }
  EXPECT_EQ(*parse_equivalence(" LaTeX "), Equivalence::latex);
}

TEST(ParseEquivalence, NamesTheBadValueAndTheChoices) {
  Result<Equivalence> bad = parse_equivalence("regex");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "config");
  EXPECT_EQ(bad.error().message, "answer equivalence \"regex\" is not one of: exact, latex, bleu");
  EXPECT_FALSE(parse_equivalence("").ok());
}

}  // namespace
}  // namespace kaisha::answers
