// effgen.md §23 item 14: f_len thresholds (Eq. 13), each golden value its own test.
#include <gtest/gtest.h>

#include "runtime/effgen/routing/complexity_score.hpp"
#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing {
namespace {

using testing::analyzer_with;
using testing::neutral_words;

double f_len_of(int words) {
  ComplexityScore s = analyzer_with().analyze(neutral_words(words));
  EXPECT_EQ(s.word_count, static_cast<std::size_t>(words));
  EXPECT_DOUBLE_EQ(s.length, length_factor(static_cast<std::size_t>(words)));
  return s.length;
}

TEST(ComplexityLength, Words19Score2) { EXPECT_DOUBLE_EQ(f_len_of(19), 2.0); }
TEST(ComplexityLength, Words20Score4) { EXPECT_DOUBLE_EQ(f_len_of(20), 4.0); }
TEST(ComplexityLength, Words49Score4) { EXPECT_DOUBLE_EQ(f_len_of(49), 4.0); }
TEST(ComplexityLength, Words50Score6) { EXPECT_DOUBLE_EQ(f_len_of(50), 6.0); }
TEST(ComplexityLength, Words99Score6) { EXPECT_DOUBLE_EQ(f_len_of(99), 6.0); }
TEST(ComplexityLength, Words100Score8) { EXPECT_DOUBLE_EQ(f_len_of(100), 8.0); }
TEST(ComplexityLength, Words199Score8) { EXPECT_DOUBLE_EQ(f_len_of(199), 8.0); }
TEST(ComplexityLength, Words200Score10) { EXPECT_DOUBLE_EQ(f_len_of(200), 10.0); }

TEST(ComplexityLength, EmptyQueryIsShort) {
  ComplexityScore s = analyzer_with().analyze("");
  EXPECT_EQ(s.word_count, 0u);
  EXPECT_DOUBLE_EQ(s.length, 2.0);
}

TEST(ComplexityLength, WordsAreWhitespaceChunksWithALetterOrDigit) {
  // "$899" and "8%" are words; a lone bullet dash and "->" are not.
  ComplexityScore s = analyzer_with().analyze("- pay $899 at 8% -> done\n\t-  ok");
  EXPECT_EQ(s.word_count, 6u);
}

}  // namespace
}  // namespace kaisha::routing
