// `kaisha backup` while a long `kaisha run` writes to the store, and `kaisha
// restore` into a fresh directory: both SQLite files check out, history
// shows the same tasks, the memories, a created tool and a workspace file
// are there, and the task the backup caught running resumes in the restored
// installation without asking the model again for the calls it kept.
#include <fstream>
#include <sstream>

#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/store/sqlite_db.hpp"

namespace kaisha::e2e::backup_test {
namespace {

// 40 budget reads, one per CEO turn, then the answer.
constexpr int kLongTurns = 40;
const std::string kScript = R"(
rules:
  - name: remember
    match: { model: ceo-model, last_user: "Remember", turn: 0 }
    reply: { tool_calls: [ { name: MemoryManager, arguments: { action: add_memory, key: tea, memory: "The user drinks 抹茶 🍵." } } ] }
  - name: long-end
    match: { model: ceo-model, last_user: "Count", turn: )" +
                            std::to_string(kLongTurns) + R"( }
    reply: { text: "数え終わりました ✅" }
  - name: long-step
    match: { model: ceo-model, last_user: "Count" }
    reply: { tool_calls: [ { name: GetBudget, arguments: {} } ], latency_ms: 300 }
  - match: { model: ceo-model }
    reply: { text: "Done: {{last_user}}" }
)";

// A created tool, as ToolCreator writes one.
constexpr const char* kCreatedTool = R"py(__all__ = ['TeaTimer']


class TeaTimer():
    dependencies = []

    inputSchema = {
        "name": "TeaTimer",
        "description": "How long to steep a tea (抹茶 🍵 or sencha).",
        "parameters": {"type": "object", "properties": {"tea": {"type": "string", "description": "The tea."}},
                       "required": ["tea"]},
    }

    def run(self, **kwargs):
        return {"status": "success", "message": "ok", "output": {"seconds": 60}}
)py";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string integrity(const std::string& path) {
  auto db = store::SqliteDb::open(path, store::SqliteDb::Options{true, false, 5000});
  if (!db.ok()) return db.error().message;
  auto q = (*db)->prepare("PRAGMA integrity_check");
  if (!q.ok()) return q.error().message;
  auto row = q->step();
  return row.ok() && *row ? q->column_text(0) : "no answer";
}

class BackupTest : public E2eTest {
 protected:
  // The config of the installation whose store is `store` (the same mock).
  std::string config_for(const std::string& store, const std::string& name) {
    ConfigOptions o;
    o.ceo_extra = "  max_turns: 100\n";
    std::string yaml = config_yaml(o);
    const std::string line = "store: " + db() + "\n";
    yaml.replace(yaml.find(line), line.size(), "store: " + store + "\n");
    return dir_.write(name, yaml);
  }
  json history(const std::string& cfg, std::vector<std::string> extra) {
    std::vector<std::string> args = {"history", "--config", cfg, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = kaisha(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return json::parse(r.out, nullptr, false);
  }
  // Model calls whose outcomes the journal at `path` keeps for `task`.
  static size_t kept_model_calls(const std::string& path, const std::string& task) {
    auto j = store::JournalStore::open_read_only(path);
    if (!j.ok()) return 0;
    auto kept = (*j)->kept_outcomes(task);
    size_t n = 0;
    if (kept.ok())
      for (const auto& k : *kept) n += json::parse(k).value("type", "") == "model";
    return n;
  }
};

TEST_F(BackupTest, ABackupTakenWhileARunWritesRestoresAndResumes) {
  start_mock(kScript);
  const std::string cfg = config_for(db(), "config.yaml");
  RunResult first = run_json(cfg, "Remember my tea.");
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  ASSERT_EQ(first.tool_results("MemoryManager").size(), 1u) << first.describe();
  const std::string tool_file = dir_.file("kaisha-tools/TeaTimer.py");
  const std::string work_file = dir_.file("kaisha-work/" + session_of(first) + "/レポート 📄.md");
  std::filesystem::create_directories(std::filesystem::path(tool_file).parent_path());
  std::filesystem::create_directories(std::filesystem::path(work_file).parent_path());
  dir_.write("kaisha-tools/TeaTimer.py", kCreatedTool);
  dir_.write("kaisha-work/" + session_of(first) + "/レポート 📄.md", "# 結果 ✅\n");

  // The long run writes steps, ledger entries and kept outcomes at every
  // turn (one each 300 ms: about 12 s, so the backup, started after the
  // first few turns, has most of that to finish in however loaded the
  // machine) while the backup copies.
  BackgroundProcess run(KAISHA_EXE, {"run", "--config", cfg, "--json", "Count to forty."},
                        {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, dir_.file("long.log"));
  ASSERT_TRUE(wait_for(
      [&] {
        auto t = latest_task(db());
        return t && t->task.input == "Count to forty." && t->kept.size() >= 6;
      },
      std::chrono::seconds(30)))
      << run.log();
  const std::string backup = dir_.file("バックアップ 💾");
  RunResult made = kaisha({"backup", backup, "--config", cfg});
  ASSERT_EQ(made.exit_code, 0) << made.describe();
  EXPECT_NE(made.out.find("backed up " + db() + " to " + backup + ": journal (schema "), std::string::npos)
      << made.describe();
  EXPECT_NE(made.out.find(", memory store ("), std::string::npos) << made.describe();
  EXPECT_NE(made.out.find(", created tools ("), std::string::npos) << made.describe();
  EXPECT_NE(made.out.find(", workspaces (1 file, "), std::string::npos) << made.describe();
  ASSERT_EQ(run.wait_exit(std::chrono::seconds(60)), 0) << run.log();
  const auto long_task = latest_task(db());
  ASSERT_TRUE(long_task);
  ASSERT_EQ(long_task->task.status, "done");
  const json manifest = json::parse(read_file(backup + "/manifest.json"));
  EXPECT_EQ(manifest["journal_schema_version"], store::JournalStore::current_schema_version());
  EXPECT_EQ(manifest["paths"]["store"], db());

  // Restored into a fresh directory, whose config names its own paths.
  const std::string fresh = dir_.file("復元 ✨");
  std::filesystem::create_directories(fresh);
  const std::string restored_db = fresh + "/kaisha.db";
  const std::string cfg2 = config_for(restored_db, "restored.yaml");
  RunResult restored = kaisha({"restore", backup, "--config", cfg2});
  ASSERT_EQ(restored.exit_code, 0) << restored.describe();
  EXPECT_NE(restored.out.find("restored " + backup), std::string::npos) << restored.describe();
  EXPECT_EQ(integrity(restored_db), "ok");
  EXPECT_EQ(integrity(fresh + "/kaisha.memory.db"), "ok");

  // The same tasks: the first session as it is in the original, the long
  // task as it was when the backup was taken (running).
  const json original = history(cfg, {"--session", session_of(first)});
  const json copy = history(cfg2, {"--session", session_of(first)});
  ASSERT_TRUE(copy.is_object());
  EXPECT_EQ(copy["tasks"], original["tasks"]);
  const json copied_long = history(cfg2, {"--session", long_task->task.session_id});
  ASSERT_TRUE(copied_long.is_object());
  ASSERT_EQ(copied_long["tasks"].size(), 1u) << copied_long;
  EXPECT_EQ(copied_long["tasks"][0]["id"], long_task->task.id);
  EXPECT_EQ(copied_long["tasks"][0]["status"], "running");

  auto memories = memory::MemoryStore::open(fresh + "/kaisha.memory.db");
  ASSERT_TRUE(memories.ok()) << memories.error().message;
  auto listed = (*memories)->list();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].content, "The user drinks 抹茶 🍵.");
  memories = Error{"", ""};
  EXPECT_EQ(read_file(fresh + "/kaisha-tools/TeaTimer.py"), kCreatedTool);
  EXPECT_EQ(read_file(fresh + "/kaisha-work/" + session_of(first) + "/レポート 📄.md"), "# 結果 ✅\n");

  // A second restore over it is refused; the original is untouched by all this.
  RunResult again = kaisha({"restore", backup, "--config", cfg2});
  EXPECT_EQ(again.exit_code, 1) << again.describe();
  EXPECT_NE(again.err.find("restoring would replace what is there: " + restored_db), std::string::npos)
      << again.describe();

  // The task caught running resumes there, asking the model only for the
  // calls the backup's journal did not keep.
  const size_t kept = kept_model_calls(restored_db, long_task->task.id);
  ASSERT_GE(kept, 3u);  // at least those kept before the backup began
  const size_t calls_before = requests_for("ceo-model").size();
  RunResult resumed = kaisha({"resume", "--config", cfg2, "--session", long_task->task.session_id, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_EQ(resumed.result().value("answer", ""), "数え終わりました ✅") << resumed.describe();
  EXPECT_EQ(requests_for("ceo-model").size() - calls_before, static_cast<size_t>(kLongTurns + 1) - kept)
      << kept << " model calls kept";
}

TEST_F(BackupTest, BadInputIsRefusedClearly) {
  start_mock(kScript);
  const std::string cfg = config_for(db(), "config.yaml");
  RunResult nothing = kaisha({"backup", dir_.file("b"), "--config", cfg});
  EXPECT_EQ(nothing.exit_code, 2) << nothing.describe();
  EXPECT_NE(nothing.err.find("kaisha backup: no store at " + db() + ": there is nothing to back up"), std::string::npos)
      << nothing.describe();
  ASSERT_EQ(run_json(cfg, "One.").exit_code, 0);

  dir_.write("taken.txt", "x");
  RunResult file = kaisha({"backup", dir_.file("taken.txt"), "--config", cfg});
  EXPECT_EQ(file.exit_code, 2) << file.describe();
  EXPECT_NE(file.err.find(dir_.file("taken.txt") + " is a file: a backup goes into a new or empty directory"),
            std::string::npos)
      << file.describe();
  RunResult no_dir = kaisha({"backup", "--config", cfg});
  EXPECT_EQ(no_dir.exit_code, 2) << no_dir.describe();

  const std::string cfg2 = config_for(dir_.file("other/kaisha.db"), "other.yaml");
  RunResult missing = kaisha({"restore", dir_.file("無い 🕳"), "--config", cfg2});
  EXPECT_EQ(missing.exit_code, 2) << missing.describe();
  EXPECT_NE(
      missing.err.find("kaisha restore: no backup at " + dir_.file("無い 🕳") + ": there is no such directory"),
      std::string::npos)
      << missing.describe();
  std::filesystem::create_directories(dir_.file("not-a-backup"));
  RunResult not_backup = kaisha({"restore", dir_.file("not-a-backup"), "--config", cfg2});
  EXPECT_EQ(not_backup.exit_code, 1) << not_backup.describe();
  EXPECT_NE(not_backup.err.find("is not a kaisha backup: it has no manifest.json"), std::string::npos)
      << not_backup.describe();
  EXPECT_FALSE(std::filesystem::exists(dir_.file("other/kaisha.db")));
}

}  // namespace
}  // namespace kaisha::e2e::backup_test
