// The budget's snapshot is written once per journal batch, not once per
// ledger change: whichever way snapshots come (with a call's charges, on
// their own, with a durable write), the newest of the batch (largest seq) is
// the one on disk, next to the rows it follows, and a change whose rows could
// not be written does not leave its snapshot behind.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  std::string tmpl = (fs::temp_directory_path() / "kaisha-budget-state-XXXXXX").string();
  return mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
}

economy::BudgetState snapshot(uint64_t seq, double used) {
  economy::BudgetState s;
  s.resource = {100, used, true};
  s.expense = {10, 0, true};
  s.seq = seq;
  return s;
}

LedgerRecord charge(const std::string& task, double amount) {
  return {"s", task, "resource", "ask_settle", amount, "a", "", amount, 100};
}

TEST(JournalBudgetState, TheNewestSnapshotOfABatchIsWrittenWithTheRowsItFollows) {
  const fs::path dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  const std::string path = (dir / "journal.db").string();
  {
    auto opened = store::JournalStore::open(path);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    std::shared_ptr<store::JournalStore> st(std::move(opened).value());
    store::SessionRow session;
    session.id = "s";
    ASSERT_TRUE(st->create_session(session).ok());
    ASSERT_TRUE(st->start_task("s", "t", "a task").ok());

    caf::actor_system_config cfg;
    cfg.set("logger.console", caf::atom("none"));
    caf::actor_system sys(cfg);
    caf::actor journal = spawn_journal(sys, st);
    bool kept = false;
    journal_with_charges(journal, {charge("t", 1)}, "s", snapshot(5, 1),
                         [&kept](store::JournalStore&) { kept = true; });
    journal_budget_state(journal, "s", snapshot(3, 0.5));  // older: it came late
    journal_with_charges(journal, {charge("t", 2)}, "s", snapshot(4, 2), nullptr);
    // Its row names no task of the journal, so its savepoint rolls back: its
    // snapshot, the largest, must not be written without its row.
    journal_with_charges(journal, {charge("no-such-task", 9)}, "s", snapshot(9, 9), nullptr);

    json on_disk;
    size_t rows = 0;
    caf::scoped_actor self{sys};
    self->request(journal, std::chrono::seconds(30), sync_atom::value, JournalOp([&](store::JournalStore& s) {
                    auto state = s.load_budget_state("s");
                    if (state.ok() && state->has_value()) on_disk = **state;
                    auto entries = s.ledger_entries("s");
                    if (entries.ok()) rows = entries->size();
                  }))
        .receive([](bool) {}, [](caf::error& e) { ADD_FAILURE() << to_string(e); });
    EXPECT_TRUE(kept);
    EXPECT_EQ(rows, 2u) << "the two charges of task t";
    EXPECT_EQ(on_disk.value("seq", uint64_t{0}), 5u) << on_disk.dump();
    EXPECT_DOUBLE_EQ(on_disk["resource"].value("used", -1.0), 1.0) << on_disk.dump();

    // A later batch with a newer snapshot replaces it.
    journal_with_charges(journal, {charge("t", 3)}, "s", snapshot(6, 3), nullptr);
    self->request(journal, std::chrono::seconds(30), sync_atom::value, JournalOp([&](store::JournalStore& s) {
                    auto state = s.load_budget_state("s");
                    if (state.ok() && state->has_value()) on_disk = **state;
                  }))
        .receive([](bool) {}, [](caf::error& e) { ADD_FAILURE() << to_string(e); });
    EXPECT_EQ(on_disk.value("seq", uint64_t{0}), 6u) << on_disk.dump();
    self->send_exit(journal, caf::exit_reason::user_shutdown);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace kaisha::actors
