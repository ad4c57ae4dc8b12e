#include "runtime/memory/consolidation.hpp"

#include <gtest/gtest.h>

namespace kaisha::memory {
namespace {

ConsolidationRules rules() {
  auto r = ConsolidationRules::load();
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : ConsolidationRules{};
}

StmMessage msg(StmRole role, const std::string& text) {
  StmMessage m;
  m.role = role;
  m.content = text;
  m.est_tokens = estimate_stm_tokens(text);
  m.timestamp = 1000;
  return m;
}

std::string padded(const std::string& head) {
  std::string s = head;
  while (s.size() < 260) s += " lorem ipsum dolor";
  return s;
}

TEST(Consolidation, TypeInferenceFollowsThePaperOrder) {
  const auto r = rules();
  EXPECT_EQ(infer_type(msg(StmRole::user, "The sky is blue"), r), MemoryType::fact);
  EXPECT_EQ(infer_type(msg(StmRole::user, "Please find the report"), r), MemoryType::task);
  // TASK needs a USER message.
  EXPECT_EQ(infer_type(msg(StmRole::assistant, "I will find the report"), r), MemoryType::observation);
  EXPECT_EQ(infer_type(msg(StmRole::assistant, "I learned that caching helps"), r), MemoryType::reflection);
  // FACT wins over REFLECTION; whole words only ("island" has "is").
  EXPECT_EQ(infer_type(msg(StmRole::assistant, "I learned it is late"), r), MemoryType::fact);
  EXPECT_EQ(infer_type(msg(StmRole::assistant, "An island far away"), r), MemoryType::observation);
}

TEST(Consolidation, KeepsLongNonToolMessagesOnly) {
  const auto r = rules();
  EXPECT_FALSE(consolidate_message(msg(StmRole::user, "The sky is blue"), r, "s").has_value());  // <= 50 tokens
  EXPECT_FALSE(consolidate_message(msg(StmRole::tool, padded("The result is 4")), r, "s").has_value());
  auto kept = consolidate_message(msg(StmRole::user, padded("The build is green")), r, "s1");
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->type, MemoryType::fact);
  EXPECT_EQ(kept->session_id, "s1");
  EXPECT_EQ(kept->id.rfind("m-", 0), 0u);
  EXPECT_GT(kept->metadata.value("importance_score", 0.0), 0.3);
}

TEST(Consolidation, ABadRulesFileIsAnErrorNamingIt) {
  auto r = ConsolidationRules::load("/nonexistent/effgen_memory.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/effgen_memory.json"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::memory
