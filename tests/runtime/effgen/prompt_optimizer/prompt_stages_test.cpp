#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/phrase_matcher.hpp"
#include "runtime/effgen/prompt_optimizer/prompt_stages.hpp"
#include "runtime/effgen/prompt_optimizer/sentence_splitter.hpp"
#include "tests/runtime/effgen/prompt_optimizer/prompt_test_support.hpp"

namespace kaisha::prompt::prompt_stages_test {
namespace {

using testing::shipped_patterns;

const char* kD5Before =
    "You are a research assistant. Your task is to search for relevant information on the given topic using web "
    "search tools. After gathering information, analyze the key findings and identify common themes. Then "
    "synthesize the information into a coherent summary. Make sure to cite sources and provide specific examples "
    "where appropriate.";

// --- τ1 ---------------------------------------------------------------------

// effgen.md §23 B.6 golden.
TEST(Compression, PaperGolden) {
  std::string t = "We must act in order to win due to the fact that it is able to help.";
  EXPECT_EQ(compress_patterns(t, shipped_patterns()), 3);
  EXPECT_EQ(t, "We must act to win because it can help.");
}

TEST(Compression, CaseInsensitiveAndCapitalized) {
  std::string t = "In Order To win, act. AT THE PRESENT TIME we wait.";
  EXPECT_EQ(compress_patterns(t, shipped_patterns()), 2);
  EXPECT_EQ(t, "To win, act. Now we wait.");
}

TEST(Compression, WholeWordsOnly) {
  std::string t = "Such asymmetry is fine; a numberless set too.";
  EXPECT_EQ(compress_patterns(t, shipped_patterns()), 0);
  EXPECT_EQ(t, "Such asymmetry is fine; a numberless set too.");
}

TEST(Compression, RemovalsTidyUp) {
  std::string t = "It is important to note that the sky is blue. In my opinion, it works. Rain is wet, I think that.";
  EXPECT_EQ(compress_patterns(t, shipped_patterns()), 3);
  EXPECT_EQ(t, "The sky is blue. It works. Rain is wet.");
}

TEST(Compression, AllThirtyPairsApply) {
  std::string t;
  for (const auto& p : shipped_patterns().compression) t += "x " + p.pattern + " y. ";
  EXPECT_EQ(compress_patterns(t, shipped_patterns()), 30);
}

TEST(Compression, CustomPatternsRunAfterBuiltins) {
  OptimizerPatterns p = shipped_patterns();
  ASSERT_TRUE(p.add_custom_pattern("artificial intelligence", "AI").ok());
  std::string t = "Artificial intelligence is able to help with respect to artificial intelligence.";
  EXPECT_EQ(compress_patterns(t, p), 4);
  EXPECT_EQ(t, "AI can help about AI.");
}

TEST(PhraseMatcher, TypographicApostropheMatches) {
  std::string t = "Don\xE2\x80\x99t forget to save.";
  EXPECT_EQ(replace_phrase(t, "Don't forget to", ""), 1);
  EXPECT_EQ(t, "Save.");
}

// --- τ2 ---------------------------------------------------------------------

// effgen.md §23 B.7 golden: 24 words, "and" at 8 is closer to 12 than
// "because" at 18.
TEST(Simplification, SplitsAtConjunctionNearestMidpoint) {
  std::string t =
      "Read the report from the finance team carefully and then write a short summary of the main risks because the "
      "board meets on Monday.";
  EXPECT_EQ(simplify_sentences(t), 1);
  EXPECT_EQ(t,
            "Read the report from the finance team carefully. And then write a short summary of the main risks because "
            "the board meets on Monday.");
}

TEST(Simplification, ShortSentencesUnchanged) {
  // Exactly 20 words: not longer than 20.
  std::string t =
      "One two three four five six seven eight nine ten and twelve thirteen fourteen fifteen sixteen "
      "seventeen eighteen nineteen twenty.";
  std::string before = t;
  EXPECT_EQ(simplify_sentences(t), 0);
  EXPECT_EQ(t, before);
}

TEST(Simplification, LongSentenceWithoutConjunctionUnchanged) {
  std::string t =
      "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
      "upsilon phi chi.";
  std::string before = t;
  EXPECT_EQ(simplify_sentences(t), 0);
  EXPECT_EQ(t, before);
}

TEST(Simplification, TieGoesToEarlierConjunctionAndCommaIsDropped) {
  // 22 words, midpoint 11: "or" at 10 and "but" at 12 tie.
  std::string t = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10, or w12 but w14 w15 w16 w17 w18 w19 w20 w21 w22.";
  EXPECT_EQ(simplify_sentences(t), 1);
  EXPECT_EQ(t, "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10. Or w12 but w14 w15 w16 w17 w18 w19 w20 w21 w22.");
}

TEST(Simplification, OtherSentencesKeptByteForByte) {
  std::string t =
      "Short one.\n\nRead the report from the finance team carefully and then write a short summary of "
      "the main risks because the board meets on Monday.\nEnd, e.g. here.";
  EXPECT_EQ(simplify_sentences(t), 1);
  EXPECT_EQ(t,
            "Short one.\n\nRead the report from the finance team carefully. And then write a short summary of "
            "the main risks because the board meets on Monday.\nEnd, e.g. here.");
}

// --- τ3 ---------------------------------------------------------------------

// effgen.md §23 B.8 golden.
TEST(Redundancy, DuplicatesCollapseAndPolitenessGoes) {
  std::string t =
      "Search the web for recent papers. Kindly summarize them. Search the web for recent papers. "
      "Make sure to cite sources.";
  auto c = remove_redundancy(t, shipped_patterns(), false);
  EXPECT_EQ(c.politeness_removed, 2);
  EXPECT_EQ(c.duplicates_removed, 1);
  EXPECT_EQ(t, "Search the web for recent papers. Summarize them. Cite sources.");
}

TEST(Redundancy, NearDuplicateAboveThreshold) {
  // 6 of 7 word 3-grams shared: 0.857 > 0.8.
  EXPECT_NEAR(shingle_similarity("Search the web for recent papers on agents.",
                                 "Search the web for recent papers on agents now."),
              6.0 / 7.0, 1e-12);
  std::string t = "Search the web for recent papers on agents. Search the web for recent papers on agents now.";
  EXPECT_EQ(remove_redundancy(t, shipped_patterns(), false).duplicates_removed, 1);
  EXPECT_EQ(t, "Search the web for recent papers on agents.");
}

TEST(Redundancy, DifferentSentencesStay) {
  std::string t = "Read the file. Write the file. Check the output twice.";
  EXPECT_EQ(remove_redundancy(t, shipped_patterns(), false).duplicates_removed, 0);
  EXPECT_EQ(t, "Read the file. Write the file. Check the output twice.");
}

TEST(Redundancy, PleaseStaysInUserText) {
  std::string user = "Please translate this. Thank you.";
  auto c = remove_redundancy(user, shipped_patterns(), true);
  EXPECT_EQ(c.politeness_removed, 1);
  EXPECT_EQ(user, "Please translate this.");
  std::string sys = "Please answer briefly. If possible, use tables. Don't forget to be kind.";
  remove_redundancy(sys, shipped_patterns(), false);
  EXPECT_EQ(sys, "Answer briefly. Use tables. Be kind.");
}

// --- τ4 ---------------------------------------------------------------------

// effgen.md §23 B.9 golden: the D.5 example gives four bullets.
TEST(Bullets, PaperExampleGivesFourBullets) {
  std::string t = kD5Before;
  EXPECT_EQ(format_bullets(t, shipped_patterns()), 4);
  EXPECT_EQ(t,
            "You are a research assistant. Your task:\n"
            "- Search for relevant information on the given topic using web search tools\n"
            "- Analyze the key findings and identify common themes\n"
            "- Synthesize the information into a coherent summary\n"
            "- Make sure to cite sources and provide specific examples where appropriate");
}

TEST(Bullets, NonInstructionBlocksStay) {
  std::string t = "The sky is blue. Water is wet.\n\nRead the file. Then write a summary.\n\n- already\n- a list";
  EXPECT_EQ(format_bullets(t, shipped_patterns()), 2);
  EXPECT_EQ(
      t, "The sky is blue. Water is wet.\n\nInstructions:\n- Read the file\n- Write a summary\n\n- already\n- a list");
}

TEST(Bullets, SingleInstructionStays) {
  std::string t = "You are helpful. Answer the question.";
  EXPECT_EQ(format_bullets(t, shipped_patterns()), 0);
  EXPECT_EQ(t, "You are helpful. Answer the question.");
}

TEST(Bullets, ConditionsAndTrailingProseKept) {
  std::string t = "Read the task. If the task is unclear, ask a question. This avoids waste. Then answer.";
  EXPECT_EQ(format_bullets(t, shipped_patterns()), 3);
  EXPECT_EQ(t, "Instructions:\n- Read the task\n- If the task is unclear, ask a question. This avoids waste\n- Answer");
}

// --- τ5 ---------------------------------------------------------------------

std::string long_text(int sentences) {
  std::string t;
  for (int i = 0; i < sentences; ++i) t += "Sentence number " + std::to_string(i) + " says something useful here. ";
  return t;
}

// effgen.md §23 B.10 (plain text): τ_prompt 512 → ≤ 460 at a sentence end.
TEST(Truncation, CutsToNinetyPercentAtSentenceBoundary) {
  std::string t = long_text(200);
  ASSERT_GT(estimate_tokens(t), 512.0);
  int dropped = truncate_text(t, 512);
  EXPECT_GT(dropped, 0);
  EXPECT_LE(estimate_tokens(t), 460.0);
  EXPECT_EQ(t.back(), '.');
  EXPECT_EQ(t, long_text(200 - dropped).substr(0, t.size()));
  // One more sentence would not have fitted.
  std::string more = t + " Sentence number " + std::to_string(200 - dropped) + " says something useful here.";
  EXPECT_GT(estimate_tokens(more), 460.0);
}

TEST(Truncation, UnderLimitUntouched) {
  std::string t = long_text(5);
  std::string before = t;
  EXPECT_EQ(truncate_text(t, 512), 0);
  EXPECT_EQ(t, before);
}

TEST(Truncation, OneHugeSentenceIsCutBetweenWords) {
  std::string t;
  for (int i = 0; i < 1000; ++i) t += "word ";
  EXPECT_EQ(truncate_text(t, 100), 1);
  EXPECT_LE(estimate_tokens(t), 90.0);
  EXPECT_EQ(t.substr(t.size() - 4), "word");
}

}  // namespace
}  // namespace kaisha::prompt::prompt_stages_test

namespace kaisha::prompt::prompt_stages_test {
namespace {

TEST(Bullets, StructuredBlocksStay) {
  for (std::string t : {"Read the file. Write it.\n{\n\"a\": 1\n}", "Rules:\nRead the file. Write it.",
                        "<task>\nRead the file. Write it.\n</task>", "**Read** the file. Write it."}) {
    std::string before = t;
    EXPECT_EQ(format_bullets(t, testing::shipped_patterns()), 0) << before;
    EXPECT_EQ(t, before);
  }
}

TEST(Bullets, TrailingNewlineOfLastBlockKept) {
  std::string t = "Read the file. Write it.\n";
  EXPECT_EQ(format_bullets(t, testing::shipped_patterns()), 2);
  EXPECT_EQ(t, "Instructions:\n- Read the file\n- Write it\n");
}

}  // namespace
}  // namespace kaisha::prompt::prompt_stages_test
