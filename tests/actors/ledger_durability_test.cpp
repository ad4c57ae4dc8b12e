// Persist before acknowledging: a hire (a fire, a raise, a tool's create
// cost) is committed to the journal before the ledger answers, so whoever
// acts on the answer acts on something a SIGKILL cannot take back. A change
// the journal cannot commit is refused with the journal's reason and not
// made.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <atomic>
#include <future>
#include <thread>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/sqlite_db.hpp"
#include "stalled_journal.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

LedgerReply ask_ledger(caf::actor_system& sys, const caf::actor& ledger, const caf::message& m) {
  caf::scoped_actor self{sys};
  LedgerReply out;
  out.ok = false;
  out.error = "no answer";
  self->request(ledger, std::chrono::seconds(30), m)
      .receive([&](LedgerReply& r) { out = std::move(r); },
               [&](caf::error& e) { out.error = self->system().render(e); });
  return out;
}

class LedgerDurability : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "kaisha-durable-XXXXXX").string();
    ASSERT_TRUE(mkdtemp(tmpl.data()));
    dir_ = tmpl;
    path_ = (dir_ / "journal.db").string();
    auto opened = store::JournalStore::open(path_);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::shared_ptr<store::JournalStore>(std::move(opened).value());
    store::SessionRow session;
    session.id = "s";
    ASSERT_TRUE(store_->create_session(session).ok());
    ASSERT_TRUE(store_->start_task("s", "t", "a task").ok());
    cfg_.set("logger.console", caf::atom("none"));
    sys_ = std::make_unique<caf::actor_system>(cfg_);
    journal_ = spawn_journal(*sys_, store_);
    budget_ = std::make_shared<economy::Budget>(100.0, 10.0);
    ledger_ = spawn_ledger(*sys_, budget_, journal_, "s");
    cost_.name = cost_.model_ref = "m";
    cost_.create_resource_cost = 10;
    cost_.create_expense_cost = 0.5;
    cost_.invoke_expense_cost = 1.0;
    cost_.output_expense_cost = 2.0;
  }
  void TearDown() override {
    caf::anon_send_exit(ledger_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(journal_, caf::exit_reason::user_shutdown);
    ledger_ = journal_ = nullptr;
    sys_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // What another process reading the file sees now.
  std::vector<store::LedgerEntryRow> entries_on_disk() {
    auto ro = store::JournalStore::open_read_only(path_);
    if (!ro.ok()) ADD_FAILURE() << ro.error().message;
    auto rows = (*ro)->ledger_entries("s");
    return rows.ok() ? *rows : std::vector<store::LedgerEntryRow>{};
  }
  json budget_on_disk() {
    auto ro = store::JournalStore::open_read_only(path_);
    auto state = (*ro)->load_budget_state("s");
    return state.ok() && state->has_value() ? **state : json();
  }
  caf::message hire() { return caf::make_message(hire_atom::value, cost_, std::string("a"), std::string("t")); }

  fs::path dir_;
  std::string path_;
  std::shared_ptr<store::JournalStore> store_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  caf::actor journal_, ledger_;
  std::shared_ptr<economy::Budget> budget_;
  economy::ModelCost cost_;
};

TEST_F(LedgerDurability, AHireIsAnsweredOnlyOnceItIsOnDisk) {
  StalledJournal stall(journal_);
  ASSERT_TRUE(stall.entered());
  auto hiring = std::async(std::launch::async, [&] { return ask_ledger(*sys_, ledger_, hire()); });
  EXPECT_EQ(hiring.wait_for(200ms), std::future_status::timeout) << "answered before the journal committed it";
  stall.release();
  LedgerReply hired = hiring.get();
  ASSERT_TRUE(hired.ok) << hired.error;
  // The moment the answer is out, the rows and the budget are on disk.
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "hire");
  EXPECT_EQ(rows[0].ledger, "resource");
  EXPECT_DOUBLE_EQ(rows[0].amount, 10);
  EXPECT_EQ(rows[1].ledger, "expense");
  EXPECT_DOUBLE_EQ(budget_on_disk()["resource"]["used"].get<double>(), 10) << budget_on_disk();

  // A raise, too.
  LedgerReply raised = ask_ledger(*sys_, ledger_, caf::make_message(raise_atom::value, std::string("expense"), 5.0));
  ASSERT_TRUE(raised.ok) << raised.error;
  rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].kind, "raise");
  EXPECT_DOUBLE_EQ(budget_on_disk()["expense"]["total"].get<double>(), 15) << budget_on_disk();
}

// A tool starts only after the answer that asked for it is kept: the sync a
// tool waits for answers once the steps sent before it are on disk.
TEST_F(LedgerDurability, ASyncIsAnsweredOnlyOnceTheStepsBeforeItAreOnDisk) {
  StalledJournal stall(journal_);
  ASSERT_TRUE(stall.entered());
  driver::AskStep step;
  step.response.message.content = "call the tool";
  caf::anon_send(ledger_, ask_step_atom::value, std::string("t"), int64_t{7}, int64_t{0},
                 std::make_shared<driver::AskStep>(step));
  auto syncing = std::async(std::launch::async, [&] {
    caf::scoped_actor self{*sys_};
    bool done = false;
    self->request(ledger_, std::chrono::seconds(30), sync_atom::value)
        .receive([&](bool ok) { done = ok; }, [&](caf::error&) {});
    return done;
  });
  EXPECT_EQ(syncing.wait_for(200ms), std::future_status::timeout) << "answered before the journal committed the step";
  stall.release();
  ASSERT_TRUE(syncing.get());
  auto ro = store::JournalStore::open_read_only(path_);
  ASSERT_TRUE(ro.ok()) << ro.error().message;
  auto kept = (*ro)->kept_ask_steps("t");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  ASSERT_EQ(kept->count(7), 1u);
  ASSERT_EQ(kept->at(7).size(), 1u);
  auto back = driver::decode_ask_step(kept->at(7)[0]);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->response.message.content, "call the tool");
}

TEST_F(LedgerDurability, AChangeTheJournalCannotCommitIsRefusedWithItsReason) {
  {
    // Every ledger row now fails to insert, as on a full disk.
    auto other = store::SqliteDb::open(path_);
    ASSERT_TRUE(other.ok()) << other.error().message;
    ASSERT_TRUE((*other)
                    ->exec("CREATE TRIGGER refuse_ledger BEFORE INSERT ON ledger_entries "
                           "BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;")
                    .ok());
  }
  LedgerReply hired = ask_ledger(*sys_, ledger_, hire());
  EXPECT_FALSE(hired.ok);
  EXPECT_NE(hired.error.find("the ledger could not save this change, so it was not made"), std::string::npos)
      << hired.error;
  EXPECT_NE(hired.error.find("disk full (simulated)"), std::string::npos) << hired.error;
  // Not made: nothing charged, nobody counted.
  EXPECT_DOUBLE_EQ(budget_->summary().current_resource_usage, 0);
  EXPECT_DOUBLE_EQ(budget_->summary().current_expense, 0);
  EXPECT_EQ(budget_->snapshot().hired_agents, 0);
  EXPECT_TRUE(entries_on_disk().empty());

  {
    auto other = store::SqliteDb::open(path_);
    ASSERT_TRUE((*other)->exec("DROP TRIGGER refuse_ledger").ok());
  }
  LedgerReply again = ask_ledger(*sys_, ledger_, hire());
  ASSERT_TRUE(again.ok) << again.error;
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "hire");
  // The budget on disk is the one in memory: the failed hire is not in it.
  json disk = budget_on_disk();
  EXPECT_DOUBLE_EQ(disk["resource"]["used"].get<double>(), 10) << disk;
  EXPECT_NEAR(disk["expense"]["used"].get<double>(), 0.5, 1e-9) << disk;
}

// A model call's charge and the outcome that keeps its answer are written in
// one commit: a crash (here: another process reading the file) finds both or
// neither, never a charge whose answer a resume would have to pay for again.
class ChargesWithOutcomes : public LedgerDurability {
 protected:
  economy::AskReservation reserve(const std::string& agent) {
    LedgerReply held =
        ask_ledger(*sys_, ledger_,
                   caf::make_message(reserve_atom::value, cost_, int64_t{100}, int64_t{100}, agent, std::string("t")));
    EXPECT_TRUE(held.ok) << held.error;
    return held.reservation;
  }
  void settle(const economy::AskReservation& r, const std::string& agent, int64_t out, KeptWith kept) {
    LedgerReply settled = ask_ledger(
        *sys_, ledger_,
        caf::make_message(settle_atom::value, r, int64_t{100}, out, agent, std::string("t"), kept.call, kept.step));
    EXPECT_TRUE(settled.ok) << settled.error;
  }
  void keep_answer(int64_t seq, int64_t call) {
    driver::ModelAnswered answered;
    answered.id = call;
    answered.ok = true;
    answered.response.message.content = "答え ✅";
    caf::anon_send(ledger_, outcome_atom::value, std::string("t"), seq,
                   std::make_shared<driver::Outcome>(std::move(answered)));
  }
  // Everything sent to the ledger before is committed (or was never sent on).
  void synced() {
    caf::scoped_actor self{*sys_};
    bool ok = false;
    self->request(ledger_, std::chrono::seconds(30), sync_atom::value)
        .receive([&](bool b) { ok = b; }, [&](caf::error&) {});
    ASSERT_TRUE(ok);
  }
  size_t kept_on_disk() {
    auto ro = store::JournalStore::open_read_only(path_);
    return ro.ok() ? (*ro)->kept_outcomes("t")->size() : 999;
  }
  double expense_used_on_disk() {
    json disk = budget_on_disk();
    return disk.is_object() ? disk["expense"]["used"].get<double>() : 0.0;
  }
};

TEST_F(ChargesWithOutcomes, AModelCallsChargeReachesTheDiskOnlyWithItsKeptOutcome) {
  const economy::AskReservation r = reserve("a");
  settle(r, "a", 50, KeptWith{3, -1});  // $100/M in + $100/M out: 100 in, 50 out = $0.0002
  synced();
  // Before the outcome: neither the charge nor the budget it moved is on disk.
  EXPECT_TRUE(entries_on_disk().empty()) << "the charge was committed without its outcome";
  EXPECT_DOUBLE_EQ(expense_used_on_disk(), 0.0) << budget_on_disk();
  EXPECT_EQ(kept_on_disk(), 0u);
  keep_answer(0, 3);
  synced();
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "ask_settle");
  EXPECT_EQ(kept_on_disk(), 1u);
  EXPECT_NEAR(expense_used_on_disk(), 0.0002, 1e-12) << budget_on_disk();
  EXPECT_NEAR(budget_->summary().current_expense, 0.0002, 1e-12);  // in memory at once, as before
}

// Two calls of one task in flight at once (parallel asks): each charge goes
// with its own outcome, not with whichever outcome comes first.
TEST_F(ChargesWithOutcomes, EachChargeWaitsForItsOwnOutcome) {
  const economy::AskReservation ra = reserve("a");
  const economy::AskReservation rb = reserve("b");
  settle(ra, "a", 50, KeptWith{1, -1});
  settle(rb, "b", 100, KeptWith{2, -1});
  keep_answer(0, 2);
  synced();
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agent, "b");
  EXPECT_NEAR(expense_used_on_disk(), 0.0003, 1e-12) << "b's charge only: " << budget_on_disk();
  keep_answer(1, 1);
  synced();
  EXPECT_EQ(entries_on_disk().size(), 2u);
  EXPECT_NEAR(expense_used_on_disk(), 0.0005, 1e-12) << budget_on_disk();
}

// An employee's model call inside its tool loop goes with the step that keeps
// its answer; a charge whose answer nobody keeps (no KeptWith) is journaled
// with the next batch, as before.
TEST_F(ChargesWithOutcomes, AnEmployeesCallGoesWithItsStepAndAnUnkeptCallGoesAtOnce) {
  settle(reserve("w"), "w", 50, KeptWith{7, 2});
  settle(reserve("x"), "x", 50, KeptWith{});
  synced();
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agent, "x");
  driver::AskStep step;
  step.response.message.content = "step 2";
  caf::anon_send(ledger_, ask_step_atom::value, std::string("t"), int64_t{7}, int64_t{2},
                 std::make_shared<driver::AskStep>(step));
  synced();
  EXPECT_EQ(entries_on_disk().size(), 2u);
}

// A charge stays paid for when its outcome will never be kept: the task
// ended first (canceled), or the company stopped.
TEST_F(ChargesWithOutcomes, HeldChargesAreJournaledWhenTheTaskEndsAndWhenTheLedgerStops) {
  settle(reserve("a"), "a", 50, KeptWith{4, -1});
  // The task's end goes through the ledger, with what the task holds.
  auto ended = std::make_shared<std::atomic<bool>>(false);
  caf::anon_send(ledger_, done_atom::value, std::string("t"),
                 JournalOp([ended](store::JournalStore&) { ended->store(true); }));
  synced();
  EXPECT_TRUE(ended->load());
  ASSERT_EQ(entries_on_disk().size(), 1u);
  // A call of the ended task settled afterwards (it was in flight when the
  // task was canceled) has no outcome to wait for: it is journaled at once.
  settle(reserve("late"), "late", 50, KeptWith{9, -1});
  synced();
  ASSERT_EQ(entries_on_disk().size(), 2u);
  EXPECT_EQ(entries_on_disk()[1].agent, "late");
  EXPECT_NEAR(expense_used_on_disk(), 0.0004, 1e-12) << budget_on_disk();

  settle(reserve("b"), "b", 50, KeptWith{5, -1});
  std::promise<void> gone;
  ledger_->attach_functor([&gone] { gone.set_value(); });
  caf::anon_send_exit(ledger_, caf::exit_reason::user_shutdown);
  ASSERT_EQ(gone.get_future().wait_for(30s), std::future_status::ready);
  {
    caf::scoped_actor self{*sys_};
    self->request(journal_, std::chrono::seconds(30), sync_atom::value, JournalOp([](store::JournalStore&) {}))
        .receive([](bool) {}, [](caf::error&) {});
  }
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].agent, "b");
  EXPECT_NEAR(expense_used_on_disk(), 0.0006, 1e-12) << budget_on_disk();
}

// A failed call's release goes with its kept outcome (the failure), like a
// settlement; once nothing is held, the budget on disk is the one in memory.
TEST_F(ChargesWithOutcomes, AFailedCallsReleaseGoesWithItsOutcome) {
  const economy::AskReservation r = reserve("a");
  LedgerReply released =
      ask_ledger(*sys_, ledger_,
                 caf::make_message(cancel_atom::value, r, std::string("a"), std::string("t"), int64_t{6}, int64_t{-1}));
  ASSERT_TRUE(released.ok) << released.error;
  synced();
  EXPECT_TRUE(entries_on_disk().empty());
  keep_answer(0, 6);
  settle(reserve("b"), "b", 50, KeptWith{7, -1});
  keep_answer(1, 7);
  synced();
  auto rows = entries_on_disk();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, "ask_release");
  EXPECT_EQ(rows[1].kind, "ask_settle");
  EXPECT_EQ(expense_used_on_disk(), budget_->snapshot().expense.used) << budget_on_disk();
}

// Sessions of one server share a Budget, each with its own ledger: the
// budget one ledger journals leaves out what the other holds.
TEST_F(ChargesWithOutcomes, ABudgetSharedByTwoLedgersLeavesOutWhatEitherHolds) {
  caf::actor other = spawn_ledger(*sys_, budget_, journal_, "s");
  LedgerReply held = ask_ledger(
      *sys_, other,
      caf::make_message(reserve_atom::value, cost_, int64_t{100}, int64_t{100}, std::string("o"), std::string("t")));
  ASSERT_TRUE(held.ok);
  ask_ledger(*sys_, other,
             caf::make_message(settle_atom::value, held.reservation, int64_t{100}, int64_t{50}, std::string("o"),
                               std::string("t"), int64_t{5}, int64_t{-1}));
  // This ledger journals a budget now (an untagged call): without the other's held charge.
  settle(reserve("x"), "x", 50, KeptWith{});
  synced();
  EXPECT_NEAR(expense_used_on_disk(), 0.0002, 1e-12) << budget_on_disk();
  EXPECT_NEAR(budget_->summary().current_expense, 0.0004, 1e-12);
  caf::anon_send_exit(other, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kaisha::actors
