#include <gtest/gtest.h>

#include "runtime/store/journal_store.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::store::quality_store_test {
namespace {

class QualityStoreTest : public testing::TempDirTest {};

std::unique_ptr<JournalStore> open_or_die(const std::string& path) {
  auto s = JournalStore::open(path);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(*s) : nullptr;
}

TEST_F(QualityStoreTest, QualityScoresSurviveReopen) {
  {
    auto j = open_or_die(file("q.db"));
    ASSERT_TRUE(j);
    auto none = j->load_quality("Worker");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
    ASSERT_TRUE(j->save_quality({"Worker", 0.6, 1, 0}));
    ASSERT_TRUE(j->save_quality({"Worker", 0.48, 2, 0}));  // upsert, not a second row
  }
  auto j = open_or_die(file("q.db"));
  auto q = j->load_quality("Worker");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->has_value());
  EXPECT_DOUBLE_EQ((*q)->q, 0.48);
  EXPECT_EQ((*q)->verdicts, 2);
  EXPECT_GT((*q)->updated_at, 0);
}

TEST_F(QualityStoreTest, Version1FileMigratesToCurrent) {
  // A store as schema version 1 left it: today's file with what later
  // versions added taken away again.
  { ASSERT_TRUE(open_or_die(file("v1.db"))); }
  {
    auto db = SqliteDb::open(file("v1.db"), {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->exec(
        "DROP TABLE agent_quality; DROP INDEX steps_session_level; DROP INDEX agents_hired; "
        "DROP TABLE task_outcomes; DROP TABLE ask_steps; DROP TABLE protocol_handles; DROP TABLE strategy_state; "
        "ALTER TABLE tasks DROP COLUMN strategy; UPDATE schema_version SET version = 1;"));
  }
  auto j = open_or_die(file("v1.db"));
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  EXPECT_TRUE(j->save_quality({"Judge", 0.5, 0, 0}));
}

}  // namespace
}  // namespace kaisha::store::quality_store_test
