// Strategy state (JournalStore::save_state / state / state_before_task):
// versions in the order written, a replayed change saved once, and the
// state a resumed task starts from.
#include <gtest/gtest.h>

#include "runtime/store/journal_store.hpp"
#include "runtime/store/sqlite_db.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::store::strategy_state_test {
namespace {

class StrategyStateTest : public testing::TempDirTest {
 protected:
  std::unique_ptr<JournalStore> open() {
    auto s = JournalStore::open(file("state.db"));
    EXPECT_TRUE(s) << (s ? "" : s.error().message);
    return s ? std::move(*s) : nullptr;
  }
};

StateRow change(const std::string& key, double q, const std::string& task, const std::string& change) {
  return StateRow{"pyramid", key, json{{"q", q}}, task, change, 0};
}

double q_of(const std::vector<StateRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return r.value.at("q").get<double>();
  return -1;
}

TEST_F(StrategyStateTest, TheLatestVersionOfEachKeyIsTheState) {
  auto j = open();
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->save_state(change("writer", 0.6, "t1", "outcome 3")));
  ASSERT_TRUE(j->save_state(change("lead", 0.6, "t1", "outcome 5")));
  ASSERT_TRUE(j->save_state(change("writer", 0.48, "t1", "outcome 7")));
  ASSERT_TRUE(j->save_state(StateRow{"hiva", "graph", json{{"nodes", 3}}, "t1", "outcome 7", 0}));
  auto rows = j->state("pyramid");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].key, "lead");  // by key
  EXPECT_DOUBLE_EQ(q_of(*rows, "writer"), 0.48);
  EXPECT_EQ((*rows)[1].task_id, "t1");
  EXPECT_EQ((*rows)[1].change, "outcome 7");
  EXPECT_GT((*rows)[1].at, 0);
  auto other = j->state("hiva");
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ((*other)[0].value, (json{{"nodes", 3}}));
}

TEST_F(StrategyStateTest, AChangeSavedAgainIsOneVersionInItsPlace) {
  auto j = open();
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->save_state(change("lead", 0.6, "t1", "outcome 5")));
  ASSERT_TRUE(j->save_state(change("lead", 0.68, "t2", "outcome 2")));
  // t1 resumed: its outcome 5 was not kept and is made again, with another
  // value. It stays one version, older than t2's.
  ASSERT_TRUE(j->save_state(change("lead", 0.4, "t1", "outcome 5")));
  auto rows = j->state("pyramid");
  ASSERT_TRUE(rows.ok());
  EXPECT_DOUBLE_EQ(q_of(*rows, "lead"), 0.68);
  auto db = SqliteDb::open(file("state.db"));
  ASSERT_TRUE(db);
  auto n = (*db)->prepare("SELECT count(*), max(value_json) FROM strategy_state WHERE task_id = 't1'");
  ASSERT_TRUE(n);
  ASSERT_TRUE(n->step().ok());
  EXPECT_EQ(n->column_int(0), 1);
  EXPECT_EQ(n->column_text(1), R"({"q":0.4})");
}

TEST_F(StrategyStateTest, ATaskResumesFromTheStateBeforeItsFirstChange) {
  auto j = open();
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->save_state(change("lead", 0.6, "t0", "outcome 1")));
  ASSERT_TRUE(j->save_state(change("writer", 0.4, "t0", "outcome 2")));
  ASSERT_TRUE(j->save_state(change("lead", 0.68, "t1", "outcome 4")));
  ASSERT_TRUE(j->save_state(change("lead", 0.744, "t1", "outcome 9")));
  ASSERT_TRUE(j->save_state(change("new", 0.6, "t1", "outcome 9")));
  auto before = j->state_before_task("t1");
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_EQ(before->size(), 2u);  // "new" did not exist yet
  EXPECT_DOUBLE_EQ(q_of(*before, "lead"), 0.6);
  EXPECT_DOUBLE_EQ(q_of(*before, "writer"), 0.4);
  // A task that changed nothing starts from the latest state.
  auto untouched = j->state_before_task("t2");
  ASSERT_TRUE(untouched.ok());
  EXPECT_EQ(untouched->size(), 3u);
  EXPECT_DOUBLE_EQ(q_of(*untouched, "lead"), 0.744);
}

TEST_F(StrategyStateTest, AChangeWithoutAKeyIsRefusedByName) {
  auto j = open();
  ASSERT_TRUE(j);
  Status s = j->save_state(StateRow{"pyramid", "", json::object(), "t1", "outcome 1", 0});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("strategy state needs a strategy and a key"), std::string::npos)
      << s.error().message;
}

// Schema 9 kept the pyramid's scores in agent_quality under "pyramid/<agent>",
// beside the judge's own: they move to strategy_state, the judge's stay.
TEST_F(StrategyStateTest, Schema9PyramidScoresMoveToStrategyState) {
  { ASSERT_TRUE(open()); }
  {
    auto db = SqliteDb::open(file("state.db"), {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->exec("DROP TABLE strategy_state; UPDATE schema_version SET version = 9; "
                    "INSERT INTO agent_quality VALUES ('pyramid/writer_agent', 0.68, 2, 1000), "
                    "('pyramid/作家🌊', 0.4, 1, 1001), ('hashiru:Poet', 0.3, 4, 1002);"));
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  auto rows = j->state("pyramid");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].key, "writer_agent");
  EXPECT_DOUBLE_EQ((*rows)[0].value.at("q").get<double>(), 0.68);
  EXPECT_EQ((*rows)[0].value.at("audits"), 2);
  EXPECT_EQ((*rows)[0].at, 1000);
  EXPECT_EQ((*rows)[0].task_id, "");
  EXPECT_EQ((*rows)[1].key, "作家🌊");
  EXPECT_EQ((*rows)[1].value.at("audits"), 1);
  auto judge = j->load_quality("hashiru:Poet");
  ASSERT_TRUE(judge.ok());
  ASSERT_TRUE(judge->has_value());
  EXPECT_EQ((*judge)->verdicts, 4);
  auto moved = j->quality_rows("pyramid/");
  ASSERT_TRUE(moved.ok());
  EXPECT_TRUE(moved->empty());
}

}  // namespace
}  // namespace kaisha::store::strategy_state_test
