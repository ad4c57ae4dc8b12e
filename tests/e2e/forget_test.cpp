// `kaisha forget`: a session's journal rows, ledgers and memories are
// deleted on request, down to the bytes of the store's files; other sessions
// stay whole; a running session is refused.
#include <fstream>
#include <iterator>

#include "e2e_fixture.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/store/session_lock.hpp"

namespace kaisha::e2e {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

constexpr const char* kAlwaysDone = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "Done." }
)";

class ForgetTest : public E2eTest {
 protected:
  std::string memory_db() const { return dir_.file("kaisha.memory.db"); }
  // Every byte the store keeps on disk: the journal, the memories and their logs.
  std::string all_bytes() const {
    std::string all;
    for (const std::string& f : {db(), db() + "-wal", memory_db(), memory_db() + "-wal"}) all += file_bytes(f);
    return all;
  }
};

TEST_F(ForgetTest, ASessionIsGoneFromTheTablesAndFromTheFiles) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "Zebra" }
    reply: { text: "Noted: Kiwi-Lantern-4711 and 秘密の鍵 🔑." }
  - match: { model: ceo-model, last_user: "Keep" }
    reply: { text: "Kept: Harbour-Otter-2288." }
)");
  const std::string cfg = write_config();
  RunResult forgotten = run_json(cfg, "Zebra-Quill-9035: remember this.");
  ASSERT_EQ(forgotten.exit_code, 0) << forgotten.describe();
  const std::string gone = session_of(forgotten);
  RunResult kept = run_json(cfg, "Keep Harbour-Otter.");
  ASSERT_EQ(kept.exit_code, 0) << kept.describe();
  const std::string stays = session_of(kept);
  {
    auto memories = memory::MemoryStore::open(memory_db());
    ASSERT_TRUE(memories.ok()) << memories.error().message;
    memory::MemoryEntry a, b;
    a.id = "m1";
    a.content = "Marmot-Velvet-5150 prefers tea";
    a.session_id = gone;
    b.id = "m2";
    b.content = "Heron-Copper-6061 prefers coffee";
    b.session_id = stays;
    ASSERT_TRUE((*memories)->add(a).ok());
    ASSERT_TRUE((*memories)->add(b).ok());
  }
  for (const char* secret : {"Zebra-Quill-9035", "Kiwi-Lantern-4711", "Marmot-Velvet-5150", "秘密の鍵"})
    ASSERT_NE(all_bytes().find(secret), std::string::npos) << secret << " should be on disk before";

  RunResult r = kaisha({"forget", "--config", cfg, "--session", gone});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("forgot session " + gone + ": 1 task, "), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find(", 1 memory\n"), std::string::npos) << r.describe();

  for (const char* secret : {"Zebra-Quill-9035", "Kiwi-Lantern-4711", "Marmot-Velvet-5150", "秘密の鍵"})
    EXPECT_EQ(all_bytes().find(secret), std::string::npos) << secret << " is still in the store's files";
  for (const char* kept_text : {"Harbour-Otter", "Heron-Copper-6061"})
    EXPECT_NE(all_bytes().find(kept_text), std::string::npos) << kept_text << " went with the other session";

  // What history shows afterwards: the session no longer exists.
  RunResult h = kaisha({"history", "--config", cfg, "--session", gone});
  EXPECT_NE(h.exit_code, 0);
  EXPECT_NE(h.err.find("no session '" + gone + "'"), std::string::npos) << h.describe();
  RunResult list = kaisha({"history", "--config", cfg, "--json", "--session", stays});
  ASSERT_EQ(list.exit_code, 0) << list.describe();
  json other = json::parse(list.out);
  ASSERT_EQ(other["tasks"].size(), 1u);
  EXPECT_EQ(other["tasks"][0]["final_answer"], "Kept: Harbour-Otter-2288.");
  auto st = journal();
  auto sessions = st->list_sessions();
  ASSERT_TRUE(sessions.ok());
  ASSERT_EQ(sessions->size(), 1u);
  EXPECT_EQ((*sessions)[0].id, stays);
  EXPECT_TRUE(st->ledger_entries(gone)->empty());
}

TEST_F(ForgetTest, BeforeADayForgetsTheOlderSessionsAndBadInputIsNamed) {
  start_mock(kAlwaysDone);
  const std::string cfg = write_config();
  ASSERT_EQ(run_json(cfg, "One.").exit_code, 0);
  ASSERT_EQ(run_json(cfg, "Two.").exit_code, 0);

  RunResult none = kaisha({"forget", "--config", cfg, "--before", "2000-01-01"});
  EXPECT_EQ(none.exit_code, 0) << none.describe();
  EXPECT_EQ(none.out, "no session was created before 2000-01-01\n");
  EXPECT_EQ(journal()->list_sessions()->size(), 2u);

  RunResult all = kaisha({"forget", "--config", cfg, "--json", "--before", "2999-12-31"});
  ASSERT_EQ(all.exit_code, 0) << all.describe();
  EXPECT_EQ(all.events("forgotten").size(), 2u) << all.out;
  EXPECT_TRUE(journal()->list_sessions()->empty());

  RunResult bad = kaisha({"forget", "--config", cfg, "--before", "28/11/2026"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--before '28/11/2026' is not a date: expected YYYY-MM-DD"), std::string::npos)
      << bad.describe();
  RunResult feb30 = kaisha({"forget", "--config", cfg, "--before", "2026-02-30"});
  EXPECT_EQ(feb30.exit_code, 2);
  EXPECT_NE(feb30.err.find("is not a day of the calendar"), std::string::npos) << feb30.describe();
  RunResult neither = kaisha({"forget", "--config", cfg});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("--session ID, or --before YYYY-MM-DD"), std::string::npos) << neither.describe();
  RunResult no_store = kaisha({"forget", "--db", dir_.file("never-made.db"), "--session", "s-nope"});
  EXPECT_EQ(no_store.exit_code, 1);
  EXPECT_NE(no_store.err.find("no store at " + dir_.file("never-made.db") + ": there is nothing to forget"),
            std::string::npos)
      << no_store.describe();
  EXPECT_FALSE(std::filesystem::exists(dir_.file("never-made.db"))) << "looking made no store";
  RunResult unknown = kaisha({"forget", "--config", cfg, "--session", "s-nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no session 's-nope'"), std::string::npos) << unknown.describe();
}

TEST_F(ForgetTest, ARunningSessionIsNotForgotten) {
  start_mock(kAlwaysDone);
  const std::string cfg = write_config();
  RunResult first = run_json(cfg, "One.");
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const std::string session = session_of(first);
  auto held = store::SessionLock::acquire(db(), session);  // as a running process would
  ASSERT_TRUE(held.ok()) << held.error().message;
  RunResult r = kaisha({"forget", "--config", cfg, "--session", session});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not forgotten: session " + session + " is already running in pid " + std::to_string(getpid())),
            std::string::npos)
      << r.describe();
  EXPECT_EQ(journal()->list_sessions()->size(), 1u);
}

}  // namespace
}  // namespace kaisha::e2e

namespace kaisha::e2e {
namespace {

// `kaisha journal compact` gives a forgotten session's room back: the file
// shrinks by about what it held, and what `history` shows of the others stays.
TEST_F(ForgetTest, CompactingGivesTheRoomOfForgottenRowsBack) {
  const std::string big(400000, 'z');
  start_mock(
      "rules:\n"
      "  - match: { model: ceo-model, last_user: \"Big\" }\n"
      "    reply: { text: \"" +
      big +
      "\" }\n"
      "  - match: { model: ceo-model }\n"
      "    reply: { text: \"小さな答え ✅\" }\n");
  const std::string cfg = write_config();
  RunResult large = run_json(cfg, "Big answer, please.");
  ASSERT_EQ(large.exit_code, 0) << large.describe();
  RunResult small = run_json(cfg, "A small one.");
  ASSERT_EQ(small.exit_code, 0) << small.describe();
  ASSERT_EQ(kaisha({"forget", "--config", cfg, "--session", session_of(large)}).exit_code, 0);

  RunResult compacted = kaisha({"journal", "compact", "--config", cfg, "--json"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.describe();
  const json c = json::parse(compacted.out);
  EXPECT_LT(c["bytes_after"].get<int64_t>(), c["bytes_before"].get<int64_t>() - 300000) << c;
  EXPECT_EQ(file_bytes(db() + "-wal").size(), 0u);  // emptied, if there at all

  RunResult history = kaisha({"history", "--config", cfg, "--session", session_of(small), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  const json h = json::parse(history.out);
  ASSERT_EQ(h["tasks"].size(), 1u) << h;
  EXPECT_EQ(h["tasks"][0]["final_answer"], "小さな答え ✅") << h;

  RunResult nothing = kaisha({"journal", "compact", "--db", dir_.file("none.db")});
  EXPECT_EQ(nothing.exit_code, 1) << nothing.describe();
  EXPECT_NE(nothing.err.find("there is nothing to compact"), std::string::npos) << nothing.describe();
}

}  // namespace
}  // namespace kaisha::e2e
