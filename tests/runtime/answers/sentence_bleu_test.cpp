#include "runtime/answers/sentence_bleu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kaisha::answers {
namespace {

std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view t : bleu_tokens(text)) out.emplace_back(t);
  return out;
}

using Tokens = std::vector<std::string>;

TEST(BleuTokens, SplitsPunctuationOffWords) {
  EXPECT_EQ(tokens_of("Hello, world!"), (Tokens{"Hello", ",", "world", "!"}));
  EXPECT_EQ(tokens_of("f(x)=x*2;"), (Tokens{"f", "(", "x", ")", "=", "x", "*", "2", ";"}));
  EXPECT_EQ(tokens_of("  a \t\n b  "), (Tokens{"a", "b"}));
  EXPECT_TRUE(tokens_of(" \n ").empty());
}

TEST(BleuTokens, PeriodAndCommaStayBetweenDigits) {
  EXPECT_EQ(tokens_of("3.14 and 1,000 end."), (Tokens{"3.14", "and", "1,000", "end", "."}));
  EXPECT_EQ(tokens_of(".5 3. a.b"), (Tokens{".", "5", "3", ".", "a", ".", "b"}));
}

TEST(BleuTokens, DashSplitsOnlyAfterADigit) {
  EXPECT_EQ(tokens_of("well-known 1-2 a-1"), (Tokens{"well-known", "1", "-", "2", "a-1"}));
  EXPECT_EQ(tokens_of("don't"), (Tokens{"don't"}));
}

TEST(BleuTokens, EachCjkCharacterIsAToken) {
  EXPECT_EQ(tokens_of("我喜欢猫。"), (Tokens{"我", "喜", "欢", "猫", "。"}));
  EXPECT_EQ(tokens_of("日本語text カナ"), (Tokens{"日", "本", "語", "text", "カ", "ナ"}));
  EXPECT_EQ(tokens_of("a\u3000b"), (Tokens{"a", "b"}));  // the ideographic space separates
}

TEST(BleuTokens, NeverSplitsACodePoint) {
  EXPECT_EQ(tokens_of("café au lait"), (Tokens{"café", "au", "lait"}));
  EXPECT_EQ(tokens_of("a\xF0\x9F\x98\x80"
                      "b"),
            (Tokens{"a\xF0\x9F\x98\x80"
                    "b"}));                              // an emoji joins its word
  EXPECT_EQ(tokens_of("a\u00A0b"), (Tokens{"a", "b"}));  // no-break space
  EXPECT_EQ(tokens_of("a\xFF"
                      "b c"),
            (Tokens{"a\xFF"
                    "b",
                    "c"}));                                // an invalid byte is a letter
  EXPECT_EQ(tokens_of("\xE6\x97"), (Tokens{"\xE6\x97"}));  // a cut-off sequence stays whole
}

TEST(SentenceBleu, IdenticalSentencesScore100) {
  EXPECT_DOUBLE_EQ(sentence_bleu("the cat sat on the mat", "the cat sat on the mat"), 100.0);
  // Two tokens: only orders 1 and 2 count (effective order), both exact.
  EXPECT_DOUBLE_EQ(sentence_bleu("hello world", "hello world"), 100.0);
}

TEST(SentenceBleu, DisjointSentencesScore0) {
  EXPECT_EQ(sentence_bleu("a b c d", "w x y z"), 0.0);
  EXPECT_EQ(sentence_bleu("", "a b"), 0.0);
  EXPECT_EQ(sentence_bleu("a b", ""), 0.0);
  EXPECT_EQ(sentence_bleu("", ""), 0.0);  // as sacreBLEU: no n-gram matched
}

// hyp "the cat sat on the mat", ref "the cat sat on a mat" (6 tokens each, BP 1):
//   1-grams  the the cat sat on mat vs the cat sat on a mat: "the" clipped to 1 -> 5/6
//   2-grams  the-cat cat-sat sat-on on-the the-mat: 3 match                     -> 3/5
//   3-grams  the-cat-sat cat-sat-on sat-on-the on-the-mat: 2 match              -> 2/4
//   4-grams  the-cat-sat-on cat-sat-on-the sat-on-the-mat: 1 match              -> 1/3
//   BLEU = 100 * (5/6 * 3/5 * 1/2 * 1/3)^(1/4) = 100 * (1/12)^(1/4) = 53.728496591177...
TEST(SentenceBleu, PartialMatchByHand) {
  EXPECT_NEAR(sentence_bleu("the cat sat on the mat", "the cat sat on a mat"), 100.0 / std::pow(12.0, 0.25), 1e-9);
  EXPECT_NEAR(sentence_bleu("the cat sat on the mat", "the cat sat on a mat"), 53.728496591177, 1e-9);
}

// hyp "a b c d", ref "a b x d":
//   1-grams 3/4; 2-grams a-b matches -> 1/3;
//   3-grams 0/2: first zero order, 'exp' gives 1/(2^1 * 2) = 1/4;
//   4-grams 0/1: second zero order, 1/(2^2 * 1) = 1/4;
//   BLEU = 100 * (3/4 * 1/3 * 1/4 * 1/4)^(1/4) = 100 * (1/64)^(1/4) = 100 / (2 sqrt 2) = 35.355339059327...
TEST(SentenceBleu, ExpSmoothingByHand) {
  EXPECT_NEAR(sentence_bleu("a b c d", "a b x d"), 100.0 / (2.0 * std::sqrt(2.0)), 1e-9);
}

// hyp "hello there", ref "hello world": 1-grams 1/2; 2-grams 0/1 -> 1/(2*1);
// no 3- or 4-grams in the hypothesis (effective order 2):
// BLEU = 100 * (1/2 * 1/2)^(1/2) = 50.
TEST(SentenceBleu, EffectiveOrderByHand) { EXPECT_NEAR(sentence_bleu("hello there", "hello world"), 50.0, 1e-9); }

// hyp "the cat" (c = 2), ref "the cat sat on the mat" (r = 6): both precisions
// 1 at effective order 2, BP = exp(1 - 6/2) = e^-2: BLEU = 100 e^-2.
TEST(SentenceBleu, BrevityPenaltyByHand) {
  EXPECT_NEAR(sentence_bleu("the cat", "the cat sat on the mat"), 100.0 * std::exp(-2.0), 1e-9);
  EXPECT_NEAR(sentence_bleu("the cat", "the cat sat on the mat"), 13.533528323661, 1e-9);
}

TEST(SentenceBleu, PunctuationCountsAsTokens) {
  // "x = 1 ;" against "x = 1": 4 tokens vs 3, 1-grams 3/4, 2-grams 2/3, 3-grams 1/2, 4-grams 0/1 -> 1/2:
  // (3/4 * 2/3 * 1/2 * 1/2)^(1/4) = (1/8)^(1/4).
  EXPECT_NEAR(sentence_bleu("x=1;", "x = 1"), 100.0 * std::pow(1.0 / 8.0, 0.25), 1e-9);
}

TEST(BleuMatch, ThresholdAndSymmetry) {
  // 53.7 in both directions (same length, same n-gram overlap).
  EXPECT_TRUE(bleu_match("the cat sat on the mat", "the cat sat on a mat", 50));
  EXPECT_FALSE(bleu_match("the cat sat on the mat", "the cat sat on a mat"));  // default 70
  // "the cat" -> 13.5 as hypothesis, 16.2 the other way round: the higher counts, whichever comes first.
  std::string short_one = "the cat", long_one = "the cat sat on the mat";
  EXPECT_TRUE(bleu_match(short_one, long_one, 16.0));
  EXPECT_TRUE(bleu_match(long_one, short_one, 16.0));
  EXPECT_FALSE(bleu_match(short_one, long_one, 17.0));
  EXPECT_FALSE(bleu_match(long_one, short_one, 17.0));
}

TEST(BleuMatch, IdenticalTextsAlwaysMatch) {
  EXPECT_TRUE(bleu_match("", ""));
  EXPECT_TRUE(bleu_match("return None", "return None"));
  EXPECT_TRUE(bleu_match("def f(x):\n    return x * 2\n", "def f(x):\n  return x*2"));  // same tokens
  EXPECT_FALSE(bleu_match("return None", "return 0"));
}

// N-grams are hashed: two 1 MB texts score in one pass.
TEST(SentenceBleu, LongTextsStayLinear) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "tok" + std::to_string(i % 5000) + " ";
  EXPECT_DOUBLE_EQ(sentence_bleu(text, text), 100.0);
}

}  // namespace
}  // namespace kaisha::answers
