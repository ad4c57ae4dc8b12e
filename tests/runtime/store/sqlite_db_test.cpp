#include "runtime/store/sqlite_db.hpp"

#include <fstream>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store_test_util.hpp"

namespace kaisha::store {
namespace {

using ::testing::HasSubstr;
using SqliteDbTest = testing::TempDirTest;

TEST_F(SqliteDbTest, OpensInWalModeWithForeignKeys) {
  auto db = SqliteDb::open(file("a.db"));
  ASSERT_TRUE(db) << db.error().message;
  auto mode = (*db)->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode);
  ASSERT_TRUE(*mode->step());
  EXPECT_EQ(mode->column_text(0), "wal");
  auto fk = (*db)->prepare("PRAGMA foreign_keys");
  ASSERT_TRUE(*fk->step());
  EXPECT_EQ(fk->column_int(0), 1);
  auto bt = (*db)->prepare("PRAGMA busy_timeout");
  ASSERT_TRUE(*bt->step());
  EXPECT_EQ(bt->column_int(0), 5000);
}

// A read-write connection syncs per its durability: NORMAL (1) by default,
// FULL (2) with Durability::full; WAL either way.
TEST_F(SqliteDbTest, SynchronousFollowsTheDurabilityAsked) {
  auto level = [](SqliteDb& db) {
    auto q = db.prepare("PRAGMA synchronous");
    EXPECT_TRUE(q);
    EXPECT_TRUE(q && *q->step());
    return q ? q->column_int(0) : -1;
  };
  auto normal = SqliteDb::open(file("normal.db"));
  ASSERT_TRUE(normal) << normal.error().message;
  EXPECT_EQ(level(**normal), 1);
  SqliteDb::Options o;
  o.durability = Durability::full;
  auto full = SqliteDb::open(file("full.db"), o);
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_EQ(level(**full), 2);
  auto mode = (*full)->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode && *mode->step());
  EXPECT_EQ(mode->column_text(0), "wal");
}

TEST_F(SqliteDbTest, BindStepAndColumns) {
  auto db = SqliteDb::open(file("a.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t(i INTEGER, d REAL, s TEXT)"));
  auto ins = (*db)->prepare("INSERT INTO t VALUES (?1, ?2, ?3)");
  ASSERT_TRUE(ins);
  ASSERT_TRUE(ins->bind_all(int64_t{7}, 2.5, std::string("x")).run());
  ins->reset();
  ASSERT_TRUE(ins->bind(1, 8).bind(2, 0.5).bind_null(3).run());
  auto q = (*db)->prepare("SELECT i, d, s FROM t ORDER BY i");
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 7);
  EXPECT_DOUBLE_EQ(q->column_double(1), 2.5);
  EXPECT_EQ(q->column_text(2), "x");
  ASSERT_TRUE(*q->step());
  EXPECT_TRUE(q->column_is_null(2));
  EXPECT_FALSE(*q->step());
}

TEST_F(SqliteDbTest, ReusedStatementsStartClean) {
  auto db = SqliteDb::open(file("cache.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t(k INTEGER, v TEXT)"));
  const std::string insert = "INSERT INTO t(k, v) VALUES (?1, ?2)";
  for (int i = 0; i < 3; ++i) {
    auto st = (*db)->prepare(insert);  // compiled once, then handed back and reused
    ASSERT_TRUE(st);
    ASSERT_TRUE(st->bind_all(i, "v" + std::to_string(i)).run());
  }
  {
    // A statement abandoned mid-iteration is reset when handed back.
    auto q = (*db)->prepare("SELECT k FROM t ORDER BY k");
    ASSERT_TRUE(q);
    ASSERT_TRUE(*q->step());
  }
  auto q = (*db)->prepare("SELECT k FROM t ORDER BY k");
  ASSERT_TRUE(q);
  std::vector<int64_t> ks;
  while (true) {
    auto row = q->step();
    ASSERT_TRUE(row);
    if (!*row) break;
    ks.push_back(q->column_int(0));
  }
  EXPECT_EQ(ks, (std::vector<int64_t>{0, 1, 2}));
  // Bindings do not leak from one use to the next.
  auto probe = (*db)->prepare("SELECT ?1 IS NULL");
  ASSERT_TRUE(probe);
  probe->bind(1, int64_t{5});
  ASSERT_TRUE(*probe->step());
  EXPECT_EQ(probe->column_int(0), 0);
  probe = (*db)->prepare("SELECT 1");  // hands the first one back
  auto again = (*db)->prepare("SELECT ?1 IS NULL");
  ASSERT_TRUE(again);
  ASSERT_TRUE(*again->step());
  EXPECT_EQ(again->column_int(0), 1);
}

TEST_F(SqliteDbTest, ErrorsCarrySqlAndPath) {
  auto db = SqliteDb::open(file("a.db"));
  ASSERT_TRUE(db);
  auto bad = (*db)->prepare("SELEC nonsense");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("SELEC nonsense"));
  EXPECT_THAT(bad.error().message, HasSubstr(file("a.db")));
  ASSERT_TRUE((*db)->exec("CREATE TABLE u(x INTEGER PRIMARY KEY)"));
  auto ins = (*db)->prepare("INSERT INTO u VALUES (1)");
  ASSERT_TRUE(ins->run());
  ins->reset();
  Status dup = ins->run();
  ASSERT_FALSE(dup);
  EXPECT_THAT(dup.error().message, HasSubstr("UNIQUE"));
  EXPECT_THAT(dup.error().message, HasSubstr("INSERT INTO u"));
}

TEST_F(SqliteDbTest, TransactionRollsBackOnError) {
  auto db = SqliteDb::open(file("a.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t(x INTEGER)"));
  Status s = (*db)->transaction([&]() -> Status {
    if (Status e = (*db)->exec("INSERT INTO t VALUES (1)"); !e) return e;
    return Error{"test", "abort"};
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "abort");
  auto q = (*db)->prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 0);
  ASSERT_TRUE((*db)->transaction([&] { return (*db)->exec("INSERT INTO t VALUES (2)"); }));
  q->reset();
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 1);
}

TEST_F(SqliteDbTest, TransactionRollsBackWhenItsBodyThrows) {
  auto db = SqliteDb::open(file("a.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t(x INTEGER)"));
  EXPECT_THROW((void)(*db)->transaction([&]() -> Status {
    if (Status e = (*db)->exec("INSERT INTO t VALUES (1)"); !e) return e;
    throw std::runtime_error("body failed");
  }),
               std::runtime_error);
  auto q = (*db)->prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 0);
  // No transaction was left open: the next one begins and commits.
  Status next = (*db)->transaction([&] { return (*db)->exec("INSERT INTO t VALUES (2)"); });
  ASSERT_TRUE(next) << next.error().message;
  q->reset();
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_int(0), 1);
}

TEST_F(SqliteDbTest, NotADatabaseNamesThePath) {
  {
    std::ofstream out(file("notes.txt"));
    out << "this is not a SQLite database, just some text that is long enough to have a header\n";
  }
  auto db = SqliteDb::open(file("notes.txt"));
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code, "store");
  EXPECT_THAT(db.error().message, HasSubstr(file("notes.txt")));
  EXPECT_THAT(db.error().message, HasSubstr("not a database"));
}

TEST_F(SqliteDbTest, ReadOnlyMissingFileFails) {
  SqliteDb::Options o;
  o.read_only = true;
  auto db = SqliteDb::open(file("missing.db"), o);
  ASSERT_FALSE(db);
  EXPECT_THAT(db.error().message, HasSubstr(file("missing.db")));
}

}  // namespace
}  // namespace kaisha::store
