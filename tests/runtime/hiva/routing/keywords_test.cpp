#include "runtime/hiva/routing/keywords.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "runtime/core/utf8.hpp"
#include "runtime/hiva/routing/embedding.hpp"

namespace kaisha::hiva {
namespace keywords_test {

using Words = std::vector<std::string>;

TEST(HivaKeywords, LowerCasesAsciiDropsStopwordsAndSingleLettersAndSorts) {
  EXPECT_EQ(keywords_of("You are a Python expert; you write the TESTS, x and y."),
            (Words{"expert", "python", "tests", "write"}));
  EXPECT_EQ(keywords_of("code code CODE"), (Words{"code"}));
  EXPECT_EQ(keywords_of("data-driven analysis_v2 in 42 steps"),
            (Words{"42", "analysis", "data", "driven", "steps", "v2"}));
  EXPECT_TRUE(keywords_of("").empty());
  EXPECT_TRUE(keywords_of("the a of, to!").empty());
}

TEST(HivaKeywords, KeepsNonAsciiWordsWholeAndSplitsAtUnicodePunctuation) {
  // Only ASCII is lower-cased; "É" and "Ü" stay as they are. The em dash,
  // the guillemets and the ideographic full stop separate words.
  EXPECT_EQ(keywords_of("Der naïve Übersetzer im Café—Straße «Élan» 数据分析。代码"),
            (Words{"café", "der", "im", "naïve", "straße", "Élan", "Übersetzer", "代码", "数据分析"}));
  // A single non-ASCII character is a word (a one-character CJK word).
  EXPECT_EQ(keywords_of("写 x"), (Words{"写"}));
}

TEST(HivaKeywords, TreatsIllFormedBytesAsSeparatorsAndNeverSplitsACodePoint) {
  EXPECT_EQ(keywords_of("ab\xFF"
                        "cd"),
            (Words{"ab", "cd"}));
  for (const std::string& word : keywords_of("caf\xC3\xA9 r\xC3sum\xC3\xA9")) {
    EXPECT_TRUE(utf8::valid(word)) << word;
  }
}

TEST(HivaKeywords, JaccardIsIntersectionOverUnion) {
  EXPECT_DOUBLE_EQ(jaccard({"a1", "b2", "c3"}, {"b2", "c3", "d4", "e5"}), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(jaccard({"a1"}, {"a1"}), 1.0);
  EXPECT_DOUBLE_EQ(jaccard({"a1"}, {"b2"}), 0.0);
  EXPECT_DOUBLE_EQ(jaccard({}, {}), 0.0);
  EXPECT_TRUE(intersects({"a1", "c3"}, {"b2", "c3"}));
  EXPECT_FALSE(intersects({"a1", "c3"}, {"b2", "d4"}));
  EXPECT_EQ(keywords_of_all({"Python code", "code review"}), (Words{"code", "python", "review"}));
}

TEST(HivaEmbedding, UnitScalesAndCosineIsTheDotProduct) {
  const Embedding v = unit({3.0f, 4.0f});
  EXPECT_NEAR(v[0], 0.6, 1e-7);
  EXPECT_NEAR(v[1], 0.8, 1e-7);
  EXPECT_NEAR(cosine(v, unit({1.0f, 0.0f})), 0.6, 1e-7);
  EXPECT_EQ(unit({0.0f, 0.0f}), (Embedding{0.0f, 0.0f}));
  EXPECT_TRUE(unit({1.0f, std::numeric_limits<float>::quiet_NaN()}).empty());
  EXPECT_EQ(cosine({1.0f}, {1.0f, 0.0f}), 0.0);  // sizes differ
  EXPECT_EQ(cosine({}, {}), 0.0);
}

}  // namespace keywords_test
}  // namespace kaisha::hiva
