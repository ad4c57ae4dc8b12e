#include "runtime/memory/memory_manager.hpp"

#include <gtest/gtest.h>

#include "runtime/memory/hashed_ngram_embedder.hpp"

namespace kaisha::memory {
namespace {

class MemoryManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto st = MemoryStore::open(":memory:");
    ASSERT_TRUE(st.ok());
    auto bank = MemoryBank::open(std::move(st).value(), std::make_shared<HashedNgramEmbedder>(), {});
    ASSERT_TRUE(bank.ok());
    bank_ = std::move(bank).value();
    auto texts = MemoryTexts::load();
    ASSERT_TRUE(texts.ok()) << texts.error().message;
    mm_ = std::make_unique<MemoryManager>(*bank_, *texts);
  }
  json run(const std::string& args) { return mm_->run(json::parse(args), "s1").to_json(); }

  std::unique_ptr<MemoryBank> bank_;
  std::unique_ptr<MemoryManager> mm_;
};

// hashiru.md §3.1: the paper's Fig. 4/5 calls, exactly.
TEST_F(MemoryManagerTest, ThePapersAddAndDeleteCallsWork) {
  json add = run(R"({"memory": "The user is vegetarian.", "action": "add_memory", "key": "vegetarian"})");
  EXPECT_EQ(add["status"], "success");
  EXPECT_EQ(add["message"], "Memory added successfully");
  EXPECT_EQ(add["output"], json({{"key", "vegetarian"}, {"memory", "The user is vegetarian."}}));

  json all = run(R"({"action": "get_all_memories"})");
  EXPECT_EQ(all["status"], "success");
  EXPECT_EQ(all["output"], json::parse(R"([{"key": "vegetarian", "memory": "The user is vegetarian."}])"));

  // Deleted by its text, not its key (Fig. 5).
  json del = run(R"({"action": "delete_memory", "key": "The user is vegetarian."})");
  EXPECT_EQ(del["status"], "success");
  EXPECT_EQ(del["message"], "Memory deleted successfully");
  EXPECT_EQ(run(R"({"action": "get_all_memories"})")["output"], json::array());
}

TEST_F(MemoryManagerTest, HashirusExactErrorTexts) {
  EXPECT_EQ(run(R"({"action": "add_memory", "key": "k"})")["message"],
            "Memory and key are required for add_memory action");
  EXPECT_EQ(run(R"({"action": "add_memory", "memory": "m"})")["message"],
            "Memory and key are required for add_memory action");
  run(R"({"action": "add_memory", "key": "k", "memory": "m"})");
  json dup = run(R"({"action": "add_memory", "key": "k", "memory": "other"})");
  EXPECT_EQ(dup["status"], "error");
  EXPECT_EQ(dup["message"], "Memory with key k already exists");
  EXPECT_EQ(run(R"({"action": "delete_memory"})")["message"], "Key is required for delete_memory action");
  EXPECT_EQ(run(R"({"action": "delete_memory", "key": "nope"})")["message"], "Memory with key nope not found");
  json bad = run(R"({"action": "forget_everything"})");
  EXPECT_EQ(bad["status"], "error");
  EXPECT_NE(bad["message"].get<std::string>().find("forget_everything"), std::string::npos);
  EXPECT_EQ(run(R"({"action": 7})")["status"], "error");
}

TEST_F(MemoryManagerTest, ErrorAnalysisMemoriesAreReflections) {
  run(R"({"action": "add_memory", "key": "ErrorAnalysis_AnklePain", "memory": "Consider osteomyelitis."})");
  run(R"({"action": "add_memory", "key": "vegetarian", "memory": "The user is vegetarian."})");
  EXPECT_EQ((*bank_->store().find("ErrorAnalysis_AnklePain"))->type, MemoryType::reflection);
  EXPECT_EQ((*bank_->store().find("vegetarian"))->type, MemoryType::fact);
  EXPECT_EQ((*bank_->store().find("vegetarian"))->importance, Importance::high);
  EXPECT_EQ((*bank_->store().find("vegetarian"))->session_id, "s1");
}

}  // namespace
}  // namespace kaisha::memory
