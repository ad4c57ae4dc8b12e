#include "runtime/memory/memory_service.hpp"

#include <gtest/gtest.h>

#include <future>

#include "memory_test_util.hpp"
#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/memory/memory_tool_source.hpp"

namespace kaisha::memory {
namespace {

std::shared_ptr<MemoryService> start(const std::string& dir_file, config::MemoryConfig c = {}) {
  c.path = dir_file;
  auto s = MemoryService::start(c, "unused.db", std::make_shared<HashedNgramEmbedder>());
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : nullptr;
}

company::ToolResult call(MemoryService& s, const json& args) {
  std::promise<company::ToolResult> p;
  s.run_tool(args, "s1", [&](company::ToolResult r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

TEST(MemoryService, DefaultPathSitsNextToTheJournal) {
  EXPECT_EQ(MemoryService::default_path("kaisha.db"), "kaisha.memory.db");
  EXPECT_EQ(MemoryService::default_path("/x/y/journal"), "/x/y/journal.memory.db");
}

TEST(MemoryService, ToolCallsAndRetrievalRunOnTheWorkerAndPersist) {
  testing::TempDir dir;
  {
    auto s = start(dir.file("m.db"));
    auto source = MemoryToolSource::create(s);
    ASSERT_TRUE(source.ok()) << source.error().message;
    auto specs = (*source)->specs();
    ASSERT_EQ(specs.size(), 1u);
    EXPECT_EQ(specs[0].name, "MemoryManager");
    EXPECT_EQ(specs[0].parameters["properties"]["action"]["enum"],
              json::parse(R"(["add_memory", "get_all_memories", "delete_memory"])"));
    std::promise<company::ToolResult> p;
    (*source)->call("MemoryManager",
                    json{{"action", "add_memory"}, {"key", "vegetarian"}, {"memory", "The user is vegetarian."}},
                    {"s1", "t1", "CEO", ""}, [&](company::ToolResult r) { p.set_value(std::move(r)); });
    EXPECT_TRUE(p.get_future().get().ok);
  }
  auto s = start(dir.file("m.db"));  // a new process, the same file
  std::promise<Result<std::vector<RetrievedMemory>>> p;
  s->retrieve("I am vegetarian. Give me a bacon pasta recipe.", [&](auto r) { p.set_value(std::move(r)); });
  auto hits = p.get_future().get();
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ(hits->front().entry.content, "The user is vegetarian.");
  EXPECT_EQ(call(*s, {{"action", "get_all_memories"}}).output.size(), 1u);
}

// effgen.md §23 item 39: after 50 short-term messages the qualifying ones are
// in the long-term and vector tiers; observe() itself only queues work.
TEST(MemoryService, ConsolidatesEveryFiftyMessagesInTheBackground) {
  testing::TempDir dir;
  auto s = start(dir.file("m.db"));
  std::string long_fact = "The staging cluster is in Frankfurt";
  while (long_fact.size() < 260) long_fact += " and it runs the nightly jobs";
  for (int i = 0; i < 49; ++i)
    s->observe(i == 10 ? StmRole::user : StmRole::assistant, i == 10 ? long_fact : "ok " + std::to_string(i), "s1");
  s->flush();
  EXPECT_EQ(s->consolidated(), 0u);                               // not yet: 49 messages
  s->observe(StmRole::tool, long_fact + " (tool output)", "s1");  // the 50th; TOOL is never kept
  s->flush();
  EXPECT_EQ(s->consolidated(), 1u);
  std::promise<Result<std::vector<RetrievedMemory>>> p;
  s->retrieve("Where is the staging cluster?", [&](auto r) { p.set_value(std::move(r)); });
  auto hits = p.get_future().get();
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ(hits->front().entry.content, long_fact);
  EXPECT_EQ(hits->front().entry.type, MemoryType::fact);
  EXPECT_EQ(hits->front().entry.session_id, "s1");
}

TEST(MemoryService, ABadMemoryFileIsReportedAtStart) {
  testing::TempDir dir;
  config::MemoryConfig c;
  c.path = dir.file("no-such-dir/deeper/m.db");
  auto s = MemoryService::start(c, "unused.db", std::make_shared<HashedNgramEmbedder>());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("memory: "), std::string::npos);
  EXPECT_NE(s.error().message.find("no-such-dir"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace kaisha::memory
