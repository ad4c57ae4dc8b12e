// The journal's backlog is bounded by back-pressure, never by dropping: with
// the writer stalled (an operation that waits, as a slow disk would) and the
// backlog past its limit, the ledger refuses new holds and hires with the
// journal's error while settlements still go through; once the writer moves
// again every write sent is in the store and new work starts again.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <thread>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/sqlite_db.hpp"
#include "stalled_journal.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& pred, std::chrono::seconds cap = 60s) {
  const auto until = std::chrono::steady_clock::now() + cap;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

LedgerReply ask_ledger(caf::scoped_actor& self, const caf::actor& ledger, const caf::message& m) {
  LedgerReply out;
  out.ok = false;
  out.error = "no answer";
  self->request(ledger, std::chrono::seconds(30), m)
      .receive([&](LedgerReply& r) { out = std::move(r); },
               [&](caf::error& e) { out.error = self->system().render(e); });
  return out;
}

fs::path temp_dir(const std::string& name) {
  std::string tmpl = (fs::temp_directory_path() / ("kaisha-" + name + "-XXXXXX")).string();
  return mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
}

// A journal at `path` with session "s" and its running task "t" (null when it cannot be made).
std::shared_ptr<store::JournalStore> store_with_task(const std::string& path) {
  auto opened = store::JournalStore::open(path);
  if (!opened.ok()) return nullptr;
  std::shared_ptr<store::JournalStore> st(std::move(opened).value());
  store::SessionRow session;
  session.id = "s";
  if (!st->create_session(session).ok() || !st->start_task("s", "t", "a task").ok()) return nullptr;
  return st;
}

TEST(JournalBacklog, NewWorkWaitsWhileTheJournalIsBehindAndNoWriteIsLost) {
  const fs::path dir = temp_dir("backlog");
  ASSERT_FALSE(dir.empty());
  const std::string path = (dir / "journal.db").string();
  {
    std::shared_ptr<store::JournalStore> st = store_with_task(path);
    ASSERT_TRUE(st);

    caf::actor_system_config cfg;
    cfg.set("logger.console", caf::atom("none"));
    caf::actor_system sys(cfg);
    JournalLimits limits;
    limits.max_backlog = 50;
    caf::actor journal = spawn_journal(sys, st, limits);
    auto budget = std::make_shared<economy::Budget>(100.0, 10.0);
    caf::actor ledger = spawn_ledger(sys, budget, journal, "s");
    caf::scoped_actor self{sys};
    economy::ModelCost cost;
    cost.name = cost.model_ref = "m";
    cost.create_resource_cost = 10;
    cost.invoke_expense_cost = 1.0;
    cost.output_expense_cost = 2.0;

    LedgerReply held = ask_ledger(
        self, ledger,
        caf::make_message(reserve_atom::value, cost, int64_t{100}, int64_t{100}, std::string("a"), std::string("t")));
    ASSERT_TRUE(held.ok) << held.error;

    // Stall the writer: the next batch waits inside this operation.
    StalledJournal stall(journal);
    ASSERT_TRUE(stall.entered());
    constexpr int kSteps = 60;
    for (int i = 0; i < kSteps; ++i) journal_step(journal, {"s", "t", "a", msg::EventKind::note, json{{"i", i}}});
    EXPECT_EQ(journal_backlog(journal), size_t{kSteps + 1});  // the stalled batch is not committed yet
    Status room = journal_room(journal);
    ASSERT_FALSE(room.ok());
    EXPECT_EQ(room.error().code, "journal_behind");
    EXPECT_EQ(room.error().message,
              "the journal is 61 writes behind the disk (the limit is 50); no new work starts until it catches up");

    // New work is refused, with that error...
    LedgerReply call = ask_ledger(
        self, ledger,
        caf::make_message(reserve_atom::value, cost, int64_t{100}, int64_t{100}, std::string("a"), std::string("t")));
    EXPECT_FALSE(call.ok);
    EXPECT_NE(call.error.find("writes behind the disk"), std::string::npos) << call.error;
    LedgerReply hire =
        ask_ledger(self, ledger, caf::make_message(hire_atom::value, cost, std::string("a"), std::string("t")));
    EXPECT_FALSE(hire.ok);
    EXPECT_NE(hire.error.find("writes behind the disk"), std::string::npos) << hire.error;
    EXPECT_EQ(budget->summary().current_remaining_resource_budget, 100.0) << "a refused hire charges nothing";
    // ...while work already started is settled and recorded.
    LedgerReply settled = ask_ledger(self, ledger,
                                     caf::make_message(settle_atom::value, held.reservation, int64_t{100}, int64_t{50},
                                                       std::string("a"), std::string("t"), int64_t{0}, int64_t{-1}));
    EXPECT_TRUE(settled.ok) << settled.error;

    stall.release();
    ASSERT_TRUE(wait_until([&] { return journal_backlog(journal) == 0; })) << journal_backlog(journal);
    EXPECT_TRUE(journal_room(journal).ok());
    LedgerReply again = ask_ledger(
        self, ledger,
        caf::make_message(reserve_atom::value, cost, int64_t{100}, int64_t{100}, std::string("a"), std::string("t")));
    EXPECT_TRUE(again.ok) << again.error;
    self->send_exit(ledger, caf::exit_reason::user_shutdown);
    self->send_exit(journal, caf::exit_reason::user_shutdown);
  }
  // Every write that was sent is in the store.
  auto ro = store::JournalStore::open_read_only(path);
  ASSERT_TRUE(ro.ok()) << ro.error().message;
  auto steps = (*ro)->session_steps("s");
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  int notes = 0;
  for (const auto& s : *steps) notes += s.kind == "note";
  EXPECT_EQ(notes, 60);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Another process holds the journal's file past the busy timeout: the
// commit fails, no new work starts meanwhile (with the reason), and once the
// file is free again the journal writes everything it was sent by itself.
TEST(JournalBacklog, ACommitThatFailsStopsNewWorkUntilTheFileIsFreeAndLosesNothing) {
  const fs::path dir = temp_dir("failing");
  ASSERT_FALSE(dir.empty());
  const std::string path = (dir / "journal.db").string();
  {
    std::shared_ptr<store::JournalStore> st = store_with_task(path);
    ASSERT_TRUE(st);

    caf::actor_system_config cfg;
    cfg.set("logger.console", caf::atom("none"));
    caf::actor_system sys(cfg);
    caf::actor journal = spawn_journal(sys, st);
    auto budget = std::make_shared<economy::Budget>(100.0, 10.0);
    caf::actor ledger = spawn_ledger(sys, budget, journal, "s");
    caf::scoped_actor self{sys};
    economy::ModelCost cost;
    cost.name = cost.model_ref = "m";
    cost.invoke_expense_cost = 1.0;
    auto reserve = [&] {
      return ask_ledger(
          self, ledger,
          caf::make_message(reserve_atom::value, cost, int64_t{100}, int64_t{100}, std::string("a"), std::string("t")));
    };

    auto other = store::SqliteDb::open(path, {});
    ASSERT_TRUE(other.ok()) << other.error().message;
    ASSERT_TRUE((*other)->exec("BEGIN IMMEDIATE").ok());  // holds the write lock
    for (int i = 0; i < 5; ++i)
      journal_step(journal, {"s", "t", "a", msg::EventKind::note, json{{"i", i}, {"文", "✓"}}});
    ASSERT_TRUE(wait_until([&] { return !journal_room(journal).ok(); }, 30s));
    Status room = journal_room(journal);
    EXPECT_EQ(room.error().code, "journal_failed");
    EXPECT_NE(room.error().message.find("the journal cannot commit to its file ("), std::string::npos)
        << room.error().message;
    EXPECT_NE(room.error().message.find("locked"), std::string::npos) << room.error().message;
    LedgerReply refused = reserve();
    EXPECT_FALSE(refused.ok);
    EXPECT_NE(refused.error.find("cannot commit to its file"), std::string::npos) << refused.error;

    ASSERT_TRUE((*other)->exec("ROLLBACK").ok());
    ASSERT_TRUE(wait_until([&] { return journal_room(journal).ok() && journal_backlog(journal) == 0; }, 30s));
    EXPECT_TRUE(reserve().ok);
    self->send_exit(ledger, caf::exit_reason::user_shutdown);
    self->send_exit(journal, caf::exit_reason::user_shutdown);
  }
  auto ro = store::JournalStore::open_read_only(path);
  ASSERT_TRUE(ro.ok()) << ro.error().message;
  auto steps = (*ro)->session_steps("s");
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  int notes = 0;
  for (const auto& s : *steps) notes += s.kind == "note";
  EXPECT_EQ(notes, 5) << "the writes that waited for the file are all there";
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace kaisha::actors
