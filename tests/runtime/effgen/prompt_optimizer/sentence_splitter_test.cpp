#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/sentence_splitter.hpp"

namespace kaisha::prompt {
namespace {

using V = std::vector<std::string>;

TEST(SentenceSplitter, SplitsOnTerminalPunctuation) {
  EXPECT_EQ(sentences_of("One. Two! Three? Four"), (V{"One.", "Two!", "Three?", "Four"}));
}

TEST(SentenceSplitter, KeepsAbbreviations) {
  EXPECT_EQ(sentences_of("Use a tool, e.g. Search or Read. Then stop."),
            (V{"Use a tool, e.g. Search or Read.", "Then stop."}));
  EXPECT_EQ(sentences_of("Ask Dr. Smith i.e. The expert. Done."), (V{"Ask Dr. Smith i.e. The expert.", "Done."}));
  EXPECT_EQ(sentences_of("It is in the U.S. Army records."), (V{"It is in the U.S. Army records."}));
  EXPECT_EQ(sentences_of("Apples, pears, etc. are fine. Go."), (V{"Apples, pears, etc. are fine.", "Go."}));
  EXPECT_EQ(sentences_of("Bring apples, pears, etc. Then go."), (V{"Bring apples, pears, etc.", "Then go."}));
}

TEST(SentenceSplitter, KeepsDecimalsVersionsAndUrls) {
  EXPECT_EQ(sentences_of("Pi is 3.14 roughly. Use v1.2.3 from example.com. End."),
            (V{"Pi is 3.14 roughly.", "Use v1.2.3 from example.com.", "End."}));
  EXPECT_EQ(sentences_of("The value is 3.14. Next."), (V{"The value is 3.14.", "Next."}));
}

TEST(SentenceSplitter, LowercaseNextWordIsNotABoundary) {
  EXPECT_EQ(sentences_of("Approx. ten items. Fine."), (V{"Approx. ten items.", "Fine."}));
  EXPECT_EQ(sentences_of("Take fig. three now."), (V{"Take fig. three now."}));
}

TEST(SentenceSplitter, LinesAndLists) {
  EXPECT_EQ(sentences_of("Steps:\n1. Read the file\n2. Write it\n- done"),
            (V{"Steps:", "1. Read the file", "2. Write it", "- done"}));
  // A hard-wrapped paragraph stays one sentence.
  EXPECT_EQ(sentences_of("Read the file and\nwrite a summary.\nThen stop."),
            (V{"Read the file and\nwrite a summary.", "Then stop."}));
}

TEST(SentenceSplitter, ClosingQuotesStayWithTheSentence) {
  EXPECT_EQ(sentences_of("He said \"stop.\" Then left."), (V{"He said \"stop.\"", "Then left."}));
}

TEST(SentenceSplitter, PiecesReassembleExactly) {
  for (std::string text : {"  Lead.  Two\n\nThree. ", "", "   ", "a", "One.\n- x\n- y\n\nEnd.\n"}) {
    std::string back;
    for (const auto& p : split_sentences(text)) back += std::string(p.text) + std::string(p.gap);
    EXPECT_EQ(back, text);
  }
}

TEST(SentenceSplitter, Words) {
  auto w = words_of("  a  b\nc ");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[2], "c");
  EXPECT_TRUE(is_paragraph_break(" \n\n"));
  EXPECT_FALSE(is_paragraph_break(" \n "));
}

}  // namespace
}  // namespace kaisha::prompt
