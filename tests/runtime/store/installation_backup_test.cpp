#include "runtime/store/installation_backup.hpp"

#include <atomic>
#include <set>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"
#include "runtime/store/sqlite_db.hpp"
#include "store_test_util.hpp"

namespace kaisha::store {
namespace {

namespace fs = std::filesystem;
using testing::TempDirTest;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST(BackupManifestTest, RoundTripsAndRefusesWhatItCannotRead) {
  BackupManifest m;
  m.kaisha_version = "0.1.0";
  m.journal_schema_version = 7;
  m.created_at = "2026-12-06T19:30:00Z";
  m.created_at_ms = 1796584200000;
  m.paths = {{"store", "/srv/店/kaisha.db"}};
  m.parts.push_back({"journal", "journal.db", "sqlite", "/srv/店/kaisha.db", 4096, 0});
  m.parts.push_back({"workspaces", "workspaces", "directory", "/srv/店/kaisha-work", 12, 2});
  auto back = BackupManifest::from_json(json::parse(m.to_json().dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), m.to_json());
  ASSERT_NE(back->part("workspaces"), nullptr);
  EXPECT_EQ(back->part("workspaces")->files, 2);
  EXPECT_EQ(back->part("memory"), nullptr);

  auto refused = [&](json j, const std::string& why) {
    auto r = BackupManifest::from_json(j);
    ASSERT_FALSE(r.ok()) << j.dump();
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
  };
  refused(json::array(), "not a JSON object");
  json j = m.to_json();
  j.erase("kaisha_backup");
  refused(j, "no \"kaisha_backup\" format number");
  j = m.to_json();
  j["kaisha_backup"] = 2;
  refused(j, "format 2, newer than this kaisha's (1): restore it with the kaisha that made it (0.1.0)");
  j = m.to_json();
  j["parts"].erase(0);
  refused(j, "it lists no journal");
  j = m.to_json();
  j["parts"][1]["path"] = "../elsewhere";
  refused(j, "has path \"../elsewhere\" (expected a name inside the backup)");
  j = m.to_json();
  j["parts"][1]["files"] = "two";
  refused(j, "\"files\" is missing or not a count");
  j = m.to_json();
  j["parts"].push_back(j["parts"][0]);
  refused(j, "part \"journal\" is listed twice");
}

class InstallationBackupTest : public TempDirTest {
 protected:
  // An installation under `root`: a journal with one session and task, a
  // memory database, a created tool and a workspace file, with Japanese and
  // emoji in the names.
  InstallationPaths installation(const std::string& root) const {
    InstallationPaths p;
    const fs::path r = dir_ / root;
    p.journal = (r / "会社.db").string();
    p.memory = (r / "会社.memory.db").string();
    p.memory_index = p.memory + ".index";
    p.user_tools = (r / "kaisha-tools").string();
    p.workspaces = (r / "kaisha-work").string();
    return p;
  }
  void populate(const InstallationPaths& p) {
    fs::create_directories(fs::path(p.journal).parent_path());
    auto j = JournalStore::open(p.journal);
    ASSERT_TRUE(j.ok()) << j.error().message;
    SessionRow s;
    s.id = "s-1";
    ASSERT_TRUE((*j)->create_session(s).ok());
    ASSERT_TRUE((*j)->start_task("s-1", "t-1", "東京の天気 🌤").ok());
    auto m = SqliteDb::open(p.memory);
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE((*m)->exec("CREATE TABLE memories(content TEXT); INSERT INTO memories VALUES ('猫が好き 🐈');").ok());
    write_file(fs::path(p.user_tools) / "天気_tool.py", "def run(): return '晴れ'\n");
    write_file(fs::path(p.workspaces) / "s-1" / "レポート 📄.md", "# 結果\n");
    fs::create_directories(p.memory_index);
  }
  std::string backup_dir() const { return (dir_ / "バックアップ 💾").string(); }
};

TEST_F(InstallationBackupTest, BacksUpAndRestoresEveryPartIntoAFreshPlace) {
  const InstallationPaths from = installation("元");
  populate(from);
  auto m = write_backup(from, backup_dir(), "0.1.0");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->journal_schema_version, JournalStore::current_schema_version());
  ASSERT_EQ(m->parts.size(), 4u);
  EXPECT_EQ(m->part("tools")->files, 1);
  EXPECT_EQ(m->part("workspaces")->files, 1);
  EXPECT_EQ(m->paths["store"], fs::weakly_canonical(from.journal).string());
  std::set<std::string> names;  // the vector index is rebuilt, not copied
  for (const auto& e : fs::directory_iterator(backup_dir())) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"journal.db", "memory.db", "tools", "workspaces", "manifest.json"}));
  // The manifest on disk is the one returned.
  EXPECT_EQ(json::parse(read_file(fs::path(backup_dir()) / "manifest.json")), m->to_json());

  const InstallationPaths to = installation("先");
  auto r = restore_backup(backup_dir(), to, /*force=*/false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->restored, (std::vector<std::string>{"journal", "memory", "tools", "workspaces"}));
  auto j = JournalStore::open_read_only(to.journal);
  ASSERT_TRUE(j.ok()) << j.error().message;
  auto t = (*j)->get_task("t-1");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->input, "東京の天気 🌤");
  auto mem = SqliteDb::open(to.memory);
  ASSERT_TRUE(mem.ok());
  auto q = (*mem)->prepare("SELECT content FROM memories");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->step());
  EXPECT_EQ(q->column_text(0), "猫が好き 🐈");
  EXPECT_EQ(read_file(fs::path(to.user_tools) / "天気_tool.py"), "def run(): return '晴れ'\n");
  EXPECT_EQ(read_file(fs::path(to.workspaces) / "s-1" / "レポート 📄.md"), "# 結果\n");
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "先"))
    EXPECT_EQ(e.path().string().find(".restoring"), std::string::npos) << e.path();
}

TEST_F(InstallationBackupTest, TheCopyIsConsistentWhileAnotherConnectionWrites) {
  const InstallationPaths from = installation("live");
  populate(from);
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    auto j = JournalStore::open(from.journal);
    ASSERT_TRUE(j.ok());
    for (int i = 0; !stop; ++i) {
      // Each batch adds a task and its step together: a copy holds both or neither.
      ASSERT_TRUE((*j)->write_batch([&]() -> Status {
                        const std::string id = "w-" + std::to_string(i);
                        if (Status s = (*j)->start_task("s-1", id, std::string(2000, 'x')); !s.ok()) return s;
                        StepRow step;
                        step.session_id = "s-1";
                        step.task_id = id;
                        step.kind = "note";
                        auto appended = (*j)->append_step(step);
                        return appended.ok() ? Status::Ok() : Status(appended.error());
                      })
                      .ok());
      ++written;
    }
  });
  while (written < 50) std::this_thread::yield();
  auto m = write_backup(from, backup_dir(), "0.1.0");
  const int after = written;
  stop = true;
  writer.join();
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto copy = SqliteDb::open((fs::path(backup_dir()) / "journal.db").string());
  ASSERT_TRUE(copy.ok());
  auto check = (*copy)->prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->step());
  EXPECT_EQ(check->column_text(0), "ok");
  auto counts = (*copy)->prepare(
      "SELECT (SELECT count(*) FROM tasks WHERE id LIKE 'w-%'), (SELECT count(*) FROM steps WHERE task_id LIKE 'w-%')");
  ASSERT_TRUE(counts.ok());
  ASSERT_TRUE(*counts->step());
  EXPECT_GE(counts->column_int(0), 50);
  EXPECT_LE(counts->column_int(0), after);
  EXPECT_EQ(counts->column_int(0), counts->column_int(1));
}

TEST_F(InstallationBackupTest, ABackupRefusesBadPlaces) {
  const InstallationPaths from = installation("src");
  auto none = write_backup(from, backup_dir(), "0.1.0");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no store at " + from.journal + ": there is nothing to back up"),
            std::string::npos)
      << none.error().message;
  populate(from);
  write_file(fs::path(backup_dir()) / "old.txt", "x");
  auto full = write_backup(from, backup_dir(), "0.1.0");
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find(backup_dir() + " is not empty: a backup goes into a new or empty directory"),
            std::string::npos)
      << full.error().message;
  const std::string in_work = (fs::path(from.workspaces) / "b").string();
  auto inside = write_backup(from, in_work, "0.1.0");
  ASSERT_FALSE(inside.ok());
  EXPECT_NE(inside.error().message.find(" is inside the workspace directory "), std::string::npos)
      << inside.error().message;
  EXPECT_FALSE(fs::exists(in_work));
}

TEST_F(InstallationBackupTest, ARestoreRefusesWhatIsNotAWholeBackup) {
  const InstallationPaths from = installation("src");
  populate(from);
  const InstallationPaths to = installation("dst");
  auto refused = [&](const std::string& dir, const std::string& why) {
    auto r = restore_backup(dir, to, /*force=*/true);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_FALSE(fs::exists(to.journal)) << "a refused restore wrote " << to.journal;
  };
  refused(file("ない"), "no backup at " + file("ない") + ": there is no such directory");
  write_file(dir_ / "plain" / "notes.txt", "x");
  refused(file("plain"), file("plain") + " is not a kaisha backup: it has no manifest.json");

  ASSERT_TRUE(write_backup(from, backup_dir(), "0.1.0").ok());
  const fs::path b(backup_dir());
  const std::string manifest = read_file(b / "manifest.json");
  fs::rename(b / "manifest.json", b / "manifest.json.bak");
  refused(backup_dir(), "is a partial backup: it has no manifest.json (the backup did not finish)");
  fs::rename(b / "manifest.json.bak", b / "manifest.json");

  write_file(b / "workspaces" / "s-1" / "extra.txt", "x");
  refused(backup_dir(), "is a partial backup: workspaces/ holds 2 files, its manifest says 1");
  fs::remove(b / "workspaces" / "s-1" / "extra.txt");
  fs::rename(b / "memory.db", b / "memory.moved");
  refused(backup_dir(), "is a partial backup: its memory (memory.db) is missing");
  fs::rename(b / "memory.moved", b / "memory.db");
  {
    std::ofstream cut(b / "memory.db", std::ios::binary | std::ios::app);
    cut << std::string(100, '\0');
  }
  refused(backup_dir(), "is a partial backup: memory.db has ");
  fs::resize_file(b / "memory.db", fs::file_size(b / "memory.db") - 100);

  write_file(b / "manifest.json", "{not json");
  refused(backup_dir(), "manifest.json is not JSON: not a kaisha backup manifest");
  write_file(b / "manifest.json", manifest);
  ASSERT_TRUE(read_backup(backup_dir()).ok());
}

TEST_F(InstallationBackupTest, ANewerJournalIsRefusedAndAnOlderOneMigrated) {
  const InstallationPaths from = installation("src");
  populate(from);
  const int current = JournalStore::current_schema_version();
  // The previous schema: the last migration created strategy_state.
  {
    auto db = SqliteDb::open(from.journal);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)
            ->exec("DROP TABLE strategy_state; UPDATE schema_version SET version = " + std::to_string(current - 1))
            .ok());
  }
  auto m = write_backup(from, backup_dir(), "0.0.9");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->journal_schema_version, current - 1);
  const InstallationPaths to = installation("dst");
  auto r = restore_backup(backup_dir(), to, false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->schema_before, current - 1);
  EXPECT_EQ(r->schema_after, current);
  EXPECT_TRUE(JournalStore::open_read_only(to.journal).ok());

  // A journal from a newer kaisha: the manifest's sizes agree, the schema does not.
  const std::string newer = file("newer");
  ASSERT_TRUE(write_backup(from, newer, "9.0.0").ok());
  {
    auto db = SqliteDb::open((fs::path(newer) / "journal.db").string());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->exec("UPDATE schema_version SET version = " + std::to_string(current + 5) +
                           "; PRAGMA journal_mode=DELETE;")
                    .ok());
  }
  json manifest = json::parse(read_file(fs::path(newer) / "manifest.json"));
  manifest["parts"][0]["bytes"] = fs::file_size(fs::path(newer) / "journal.db");
  write_file(fs::path(newer) / "manifest.json", manifest.dump());
  const InstallationPaths fresh = installation("fresh");
  auto too_new = restore_backup(newer, fresh, false);
  ASSERT_FALSE(too_new.ok());
  EXPECT_NE(too_new.error().message.find("holds a journal of schema version " + std::to_string(current + 5) +
                                         ", newer than this kaisha's (" + std::to_string(current) +
                                         "): restore it with the kaisha that made it (9.0.0) or a newer one"),
            std::string::npos)
      << too_new.error().message;
  EXPECT_FALSE(fs::exists(fresh.journal));
}

TEST_F(InstallationBackupTest, AnExistingStoreIsReplacedOnlyWithForceAndNeverWhileInUse) {
  const InstallationPaths from = installation("src");
  populate(from);
  ASSERT_TRUE(write_backup(from, backup_dir(), "0.1.0").ok());
  const InstallationPaths to = installation("dst");
  fs::create_directories(fs::path(to.journal).parent_path());
  {
    auto j = JournalStore::open(to.journal);
    ASSERT_TRUE(j.ok());
    SessionRow s;
    s.id = "s-other";
    ASSERT_TRUE((*j)->create_session(s).ok());
  }
  write_file(fs::path(to.workspaces) / "stale.txt", "old");
  fs::create_directories(to.memory_index);

  auto refused = restore_backup(backup_dir(), to, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, "exists");
  EXPECT_NE(refused.error().message.find("restoring would replace what is there: " + to.journal + ", " + to.workspaces),
            std::string::npos)
      << refused.error().message;
  EXPECT_TRUE((*JournalStore::open_read_only(to.journal))->get_session("s-other")->has_value());

  {
    auto held = SessionLock::acquire(to.journal, "s-other");  // a live process runs a session of it
    ASSERT_TRUE(held.ok());
    auto busy = restore_backup(backup_dir(), to, true);
    ASSERT_FALSE(busy.ok());
    EXPECT_NE(busy.error().message.find("the store at " + to.journal + " is in use by pid " + std::to_string(getpid())),
              std::string::npos)
        << busy.error().message;
  }
  auto forced = restore_backup(backup_dir(), to, true);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  auto j = JournalStore::open_read_only(to.journal);
  ASSERT_TRUE(j.ok());
  EXPECT_FALSE((*j)->get_session("s-other")->has_value());
  EXPECT_TRUE((*j)->get_session("s-1")->has_value());
  EXPECT_FALSE(fs::exists(fs::path(to.workspaces) / "stale.txt"));
  EXPECT_TRUE(fs::exists(fs::path(to.workspaces) / "s-1" / "レポート 📄.md"));
  EXPECT_FALSE(fs::exists(to.memory_index)) << "a stale vector index would be loaded for other memories";
}

}  // namespace
}  // namespace kaisha::store
