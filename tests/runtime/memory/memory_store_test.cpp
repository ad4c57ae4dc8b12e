#include "runtime/memory/memory_store.hpp"

#include <gtest/gtest.h>

#include "memory_test_util.hpp"
#include "runtime/memory/fts_query.hpp"
#include "runtime/store/sqlite_db.hpp"

namespace kaisha::memory {
namespace {

MemoryEntry entry(const std::string& id, const std::string& content, const std::string& session = "s1") {
  MemoryEntry e;
  e.id = id;
  e.content = content;
  e.session_id = session;
  return e;
}

// effgen.md §23 item 36: the schema matches §8.2.
TEST(MemoryStore, MemoriesTableAndIndicesAreEffgensSchema) {
  testing::TempDir dir;
  const std::string path = dir.file("m.db");
  ASSERT_TRUE(MemoryStore::open(path).ok());
  auto db = store::SqliteDb::open(path);
  ASSERT_TRUE(db.ok());
  auto cols =
      (*db)->prepare("SELECT name, type, \"notnull\", COALESCE(dflt_value, ''), pk FROM pragma_table_info('memories')");
  ASSERT_TRUE(cols.ok());
  std::vector<std::string> got;
  while (*cols->step())
    got.push_back(cols->column_text(0) + " " + cols->column_text(1) + " " + std::to_string(cols->column_int(2)) + " " +
                  cols->column_text(3) + " " + std::to_string(cols->column_int(4)));
  const std::vector<std::string> want = {"id TEXT 0  1",
                                         "content TEXT 1  0",
                                         "memory_type TEXT 1  0",
                                         "importance INTEGER 1  0",
                                         "timestamp REAL 1  0",
                                         "session_id TEXT 0  0",
                                         "metadata TEXT 0  0",
                                         "access_count INTEGER 0 0 0",
                                         "last_accessed REAL 0  0",
                                         "tags TEXT 0  0"};
  EXPECT_EQ(got, want);
  auto idx = (*db)->prepare(
      "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='memories' AND sql IS NOT NULL ORDER BY name");
  ASSERT_TRUE(idx.ok());
  std::vector<std::string> names;
  while (*idx->step()) names.push_back(idx->column_text(0));
  EXPECT_EQ(names, (std::vector<std::string>{"idx_importance", "idx_session", "idx_timestamp", "idx_type"}));
}

TEST(MemoryStore, RetrievalFilteredBySessionUsesTheIndex) {
  testing::TempDir dir;
  const std::string path = dir.file("m.db");
  ASSERT_TRUE(MemoryStore::open(path).ok());
  auto db = store::SqliteDb::open(path);
  auto plan = (*db)->prepare("EXPLAIN QUERY PLAN SELECT * FROM memories WHERE session_id = 'x'");
  ASSERT_TRUE(plan.ok());
  std::string detail;
  while (*plan->step()) detail += plan->column_text(3);
  EXPECT_NE(detail.find("idx_session"), std::string::npos) << detail;
}

TEST(MemoryStore, AddFindRemoveAndDuplicateIds) {
  auto st = MemoryStore::open(":memory:");
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& s = **st;
  MemoryEntry a = entry("vegetarian", "The user is vegetarian.");
  a.tags = {"diet"};
  a.metadata = json{{"source", "test"}};
  auto label = s.add(a);
  ASSERT_TRUE(label.ok()) << label.error().message;
  EXPECT_GT(*label, 0);
  EXPECT_GT(a.timestamp, 0);

  MemoryEntry dup = entry("vegetarian", "other");
  auto again = s.add(dup);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "exists");

  auto found = s.find("vegetarian");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->content, "The user is vegetarian.");
  EXPECT_EQ((*found)->tags, std::vector<std::string>{"diet"});
  EXPECT_EQ((*found)->metadata.value("source", ""), "test");
  EXPECT_EQ((*found)->label, *label);

  auto by_text = s.find_by_content("The user is vegetarian.");
  ASSERT_TRUE(by_text.ok() && by_text->has_value());
  EXPECT_EQ((*by_text)->id, "vegetarian");

  auto removed = s.remove("vegetarian");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_FALSE(*s.remove("vegetarian"));
  EXPECT_FALSE(s.find("vegetarian")->has_value());
  EXPECT_TRUE(s.lexical("vegetarian", 5)->empty());  // the FTS row went too
}

TEST(MemoryStore, LabelsAreNeverReused) {
  auto st = MemoryStore::open(":memory:");
  auto& s = **st;
  MemoryEntry a = entry("a", "alpha");
  const int64_t first = *s.add(a);
  ASSERT_TRUE(*s.remove("a"));
  MemoryEntry b = entry("b", "beta");
  EXPECT_GT(*s.add(b), first);
}

TEST(MemoryStore, LexicalSearchRanksContentWordsAndIgnoresStopwordsAndSyntax) {
  auto st = MemoryStore::open(":memory:");
  auto& s = **st;
  for (auto [id, text] : {std::pair{"a", "The user is vegetarian."}, std::pair{"b", "Prefers pasta with tomato."},
                          std::pair{"c", "The deadline is Friday."}}) {
    MemoryEntry e = entry(id, text);
    ASSERT_TRUE(s.add(e).ok());
  }
  const std::set<std::string> stop = {"the", "is", "a", "me"};
  auto hits = s.lexical("Give me a \"pasta\" recipe (vegetarian) AND NOT OR*", 10, stop);
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_EQ(hits->size(), 2u);
  for (const auto& h : *hits) EXPECT_GT(h.score, 0);
  // Stopwords alone match nothing.
  EXPECT_TRUE(s.lexical("the is a", 10, stop)->empty());
  EXPECT_EQ(fts_match_expression("Hi, \"x\" NEAR(y)!"), "\"hi\" OR \"near\"");
}

TEST(MemoryStore, VectorsAreCachedPerModelAndBumpTheGeneration) {
  auto st = MemoryStore::open(":memory:");
  auto& s = **st;
  MemoryEntry e = entry("k", "text");
  ASSERT_TRUE(s.add(e).ok());
  const int64_t g0 = *s.generation();
  EXPECT_EQ(s.missing_vectors("m1", 0, 10)->size(), 1u);
  ASSERT_TRUE(s.set_vector(e.label, "m1", {0.6f, 0.8f}).ok());
  EXPECT_GT(*s.generation(), g0);
  EXPECT_TRUE(s.missing_vectors("m1", 0, 10)->empty());
  EXPECT_EQ(s.missing_vectors("m2", 0, 10)->size(), 1u);  // another model: embed again
  auto v = s.vector(e.label, "m1");
  ASSERT_TRUE(v.ok() && v->has_value());
  EXPECT_EQ(**v, (std::vector<float>{0.6f, 0.8f}));
  EXPECT_FALSE(s.vector(e.label, "m2")->has_value());
  int seen = 0;
  ASSERT_TRUE(s.for_each_vector("m1", [&](int64_t label, const std::vector<float>& vec) {
                 EXPECT_EQ(label, e.label);
                 EXPECT_EQ(vec.size(), 2u);
                 ++seen;
               }).ok());
  EXPECT_EQ(seen, 1);
}

TEST(MemoryStore, TouchCountsAccesses) {
  auto st = MemoryStore::open(":memory:");
  auto& s = **st;
  MemoryEntry e = entry("k", "text");
  ASSERT_TRUE(s.add(e).ok());
  ASSERT_TRUE(s.touch({e.label, e.label}, 1234.5).ok());
  auto f = s.find("k");
  EXPECT_EQ((*f)->access_count, 2);
  EXPECT_DOUBLE_EQ((*f)->last_accessed, 1234.5);
  EXPECT_EQ(*s.max_access_count(), 2);
}

TEST(MemoryStore, SessionFilterAndOrder) {
  auto st = MemoryStore::open(":memory:");
  auto& s = **st;
  for (auto [id, sess] : {std::pair{"a", "s1"}, std::pair{"b", "s2"}, std::pair{"c", "s1"}}) {
    MemoryEntry e = entry(id, id, sess);
    ASSERT_TRUE(s.add(e).ok());
  }
  auto s1 = s.list(0, "s1");
  ASSERT_EQ(s1->size(), 2u);
  EXPECT_EQ((*s1)[0].id, "a");
  EXPECT_EQ((*s1)[1].id, "c");
  EXPECT_EQ(s.list()->size(), 3u);
  EXPECT_EQ(*s.count(), 3);
}

TEST(MemoryStore, ATextFileIsRefusedWithItsPath) {
  testing::TempDir dir;
  const std::string path = dir.file("notes.txt");
  FILE* f = fopen(path.c_str(), "w");
  fputs("this is not a database, just some text that is long enough to have a header\n", f);
  fclose(f);
  auto st = MemoryStore::open(path);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(path), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace kaisha::memory
