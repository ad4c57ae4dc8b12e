#include "runtime/memory/memory_scoring.hpp"

#include <gtest/gtest.h>

namespace kaisha::memory {
namespace {

std::string words(int n, const std::string& w = "word") {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + w;
  return s;
}

// effgen.md §23 item 37 goldens.
TEST(MemoryScoring, FactHighHundredWordsNoKeywordsIs072) {
  const std::vector<std::string> kw = {"important", "critical", "error"};
  EXPECT_NEAR(importance_score(Importance::high, MemoryType::fact, words(100), kw), 0.72, 1e-12);
}

TEST(MemoryScoring, ScoreWithFullRecencyNoFrequencyHalfSimilarityIs0616) {
  const double imp = importance_score(Importance::high, MemoryType::fact, words(100), {});
  EXPECT_NEAR(retrieval_score(1.0, 0.0, imp, 0.5), 0.616, 1e-12);
}

TEST(MemoryScoring, SevenDaysIsHalfInHalfLifeModeAndOneOverEInPaperMode) {
  const double week = 7 * 24 * 3600.0;
  EXPECT_NEAR(recency_score(week, 7, DecayMode::half_life), 0.5, 1e-12);
  EXPECT_NEAR(recency_score(week, 7, DecayMode::paper_literal), 0.3679, 1e-4);
  EXPECT_DOUBLE_EQ(recency_score(0), 1.0);
}

TEST(MemoryScoring, ImportanceTablesAndKeywords) {
  EXPECT_DOUBLE_EQ(manual_importance(Importance::critical), 1.0);
  EXPECT_DOUBLE_EQ(manual_importance(Importance::low), 0.25);
  EXPECT_DOUBLE_EQ(type_importance(MemoryType::reflection), 0.7);
  EXPECT_DOUBLE_EQ(type_importance(MemoryType::conversation), 0.3);
  // Whole words only: "errors" is not "error".
  EXPECT_DOUBLE_EQ(keyword_fraction("An ERROR, important!", {"error", "important", "critical", "key"}), 0.5);
  EXPECT_DOUBLE_EQ(keyword_fraction("errors everywhere", {"error"}), 0.0);
  // Length saturates at 100 words.
  EXPECT_DOUBLE_EQ(importance_score(Importance::low, MemoryType::conversation, words(300), {}),
                   0.4 * 0.25 + 0.3 * 0.3 + 0.15);
}

TEST(MemoryScoring, FrequencyIsLogRelativeToTheMostAccessed) {
  EXPECT_DOUBLE_EQ(frequency_score(0, 10), 0.0);
  EXPECT_DOUBLE_EQ(frequency_score(10, 10), 1.0);
  EXPECT_NEAR(frequency_score(3, 15), std::log(4.0) / std::log(16.0), 1e-12);
  EXPECT_DOUBLE_EQ(frequency_score(5, 0), 0.0);
}

}  // namespace
}  // namespace kaisha::memory
