#include "actors/system/ledger_actor.hpp"

#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <vector>
#include <sstream>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/driver/outcome_codec.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/economy/held_charges.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

using Held = economy::HeldCharges<LedgerRecord>;

// Rows held at most, all calls together: past this (a flood of calls whose
// records never come) they are journaled on their own, as before holding.
constexpr size_t kMaxHeldRows = 4096;
// Tasks remembered as ended, so that a call settled after its task's end
// (canceled in flight) is journaled at once: its outcome will not be kept.
constexpr size_t kMaxEndedLedgerTasks = 4096;

// The settlements every ledger of one Budget holds (the sessions of a server
// share one): a budget snapshot for the journal leaves them all out. The
// mutex makes a settlement and its count, and a snapshot and the count it
// leaves out, one step each.
struct Unsaved {
  std::mutex mu;
  economy::UnsavedChanges changes;
};

// One Unsaved per Budget, found by its address (while a ledger holds it).
std::shared_ptr<Unsaved> unsaved_of(const economy::Budget* budget) {
  static std::mutex mu;
  static std::map<const economy::Budget*, std::weak_ptr<Unsaved>> all;
  std::lock_guard<std::mutex> g(mu);
  for (auto it = all.begin(); it != all.end();) it = it->second.expired() ? all.erase(it) : std::next(it);
  auto& weak = all[budget];
  auto found = weak.lock();
  if (!found) {
    found = std::make_shared<Unsaved>();
    weak = found;
  }
  return found;
}

struct LedgerActorState {
  std::shared_ptr<economy::Budget> budget;
  std::shared_ptr<Unsaved> unsaved;  // shared with the other ledgers of `budget`
  caf::actor journal;
  std::string session;
  std::string budget_session;     // whose budget state this is (a shared budget's owner)
  Held held;                      // settlements waiting for the records that keep their answers
  std::deque<std::string> ended;  // the newest kMaxEndedLedgerTasks tasks that ended, oldest first
  std::set<std::string> ended_set;
  static inline const char* name = "ledger";
};

using LedgerSelf = caf::stateful_actor<LedgerActorState>;

// The budget as the journal holds it: without the held settlements (every
// ledger's of this budget), so a crash never leaves a charge counted on disk
// whose row is not there.
economy::BudgetState on_disk(LedgerSelf* self) {
  auto& u = *self->state.unsaved;
  std::lock_guard<std::mutex> g(u.mu);
  return u.changes.taken_from(self->state.budget->snapshot());
}

void remember_ended(LedgerSelf* self, const std::string& task) {
  auto& st = self->state;
  if (!st.ended_set.insert(task).second) return;
  st.ended.push_back(task);
  if (st.ended.size() > kMaxEndedLedgerTasks) {
    st.ended_set.erase(st.ended.front());
    st.ended.pop_front();
  }
}

// Replies carry the six GetBudget numbers; only (budget_atom) gets the full view.
LedgerReply reply_ok(LedgerSelf* self) {
  LedgerReply r;
  r.budget = self->state.budget->summary();
  return r;
}

LedgerReply reply_refused(LedgerSelf* self, const std::string& why) {
  LedgerReply r = reply_ok(self);
  r.ok = false;
  r.error = why;
  return r;
}

// The rows one message writes, and whether the budget changed.
struct Change {
  std::vector<LedgerRecord> rows;
  bool state = false;  // the budget changed: its snapshot goes with the rows

  void record(LedgerSelf* self, const std::string& task, const std::string& ledger, const std::string& kind,
              double amount, const std::string& agent, const std::string& reason = {}) {
    auto& st = self->state;
    const economy::Ledger& l = ledger == "resource" ? st.budget->resource() : st.budget->expense();
    rows.push_back({st.session, task, ledger, kind, amount, agent, reason, l.used(), l.total()});
  }
};

// A settlement or release: journaled (with the budget after it) in order
// with every other write, and answered at once. A model call's round trip
// to the journal's thread and its commit would cost each call several
// hundred microseconds (bench/HISTORY.md); what a crash can lose is the
// last couple of milliseconds of such rows.
void record(LedgerSelf* self, Change change) {
  auto& st = self->state;
  for (auto& row : change.rows) journal_ledger(st.journal, std::move(row));
  if (change.state) journal_budget_state(st.journal, st.budget_session, on_disk(self));
}

// Takes what is held under `keys` and journals it, with the budget after it,
// together with the writes of `then` (a kept record, a task's end; nothing
// held: `then` alone, still behind every charge sent here before).
void journal_held(LedgerSelf* self, const std::vector<Held::Key>& keys,
                  std::function<void(store::JournalStore&)> then) {
  auto& st = self->state;
  std::vector<LedgerRecord> rows;
  std::optional<economy::BudgetState> state;
  economy::BudgetChange saved;
  size_t settlements = 0;  // settle_unsaved() calls they came in
  for (const auto& key : keys)
    if (auto taken = st.held.take(key)) {
      for (auto& r : taken->rows) rows.push_back(std::move(r));
      saved += taken->change;
      settlements += taken->holds;
    }
  if (settlements > 0) {
    auto& u = *st.unsaved;
    std::lock_guard<std::mutex> g(u.mu);
    u.changes.saved(saved, settlements);
    state = u.changes.taken_from(st.budget->snapshot());
  }
  journal_with_charges(st.journal, std::move(rows), st.budget_session, std::move(state), std::move(then));
}

// Whether a settlement or release of `task`'s call is held for the record
// `kept` names: not when none will come (untagged, or its task has ended).
bool holds(LedgerSelf* self, const std::string& task, const KeptWith& kept) {
  auto& st = self->state;
  return !task.empty() && kept.call != 0 && st.journal && !st.ended_set.count(task);
}

// Makes a held change to the budget (`settle`, returning how far it moved
// it) in one step with counting it as not on disk.
economy::BudgetChange settle_unsaved(LedgerSelf* self, const std::function<economy::BudgetChange()>& settle) {
  auto& u = *self->state.unsaved;
  std::lock_guard<std::mutex> g(u.mu);
  economy::BudgetChange moved = settle();
  u.changes.add(moved);
  return moved;
}

void hold(LedgerSelf* self, const std::string& task, const KeptWith& kept, Change change,
          const economy::BudgetChange& moved) {
  auto& st = self->state;
  st.held.hold(Held::Key{task, kept.call, kept.step}, std::move(change.rows), moved);
  if (st.held.rows() > kMaxHeldRows)
    for (const auto& key : st.held.keys_of("")) journal_held(self, {key}, nullptr);
}

// Hires, fires, tools' create and delete costs and raises: answered once
// `change` is committed (persist before acknowledging). A failed commit is
// answered with a refusal saying so, after `undo`, which takes back a change
// nobody has paid for yet (a hire, a tool's creation).
caf::result<LedgerReply> commit(LedgerSelf* self, Change change, LedgerReply reply, std::function<void()> undo = {}) {
  if (change.rows.empty() && !change.state) return reply;
  auto promise = self->make_response_promise<LedgerReply>();
  auto& st = self->state;
  std::optional<economy::BudgetState> state;
  if (change.state) state = on_disk(self);
  journal_ledger_durably(self, st.journal, std::move(change.rows), st.budget_session, std::move(state),
                         [self, promise, reply = std::move(reply), undo = std::move(undo)](Status s) mutable {
                           if (s.ok()) {
                             promise.deliver(std::move(reply));
                             return;
                           }
                           if (undo) {
                             undo();
                             // The state on disk converges on the one in memory.
                             journal_budget_state(self->state.journal, self->state.budget_session, on_disk(self));
                           }
                           LedgerReply refused = reply_refused(self,
                                                               "the ledger could not save this change, so it "
                                                               "was not made: " +
                                                                   s.error().message);
                           refused.reservation = reply.reservation;
                           promise.deliver(std::move(refused));
                         });
  return promise;
}

// New work (a hold, a hire) waits while the journal is behind the disk: its
// writes would only grow the journal's backlog (see journal_actor.hpp).
// Settlements, releases and refunds close work already started and are
// always recorded.
std::optional<LedgerReply> refuse_if_journal_behind(LedgerSelf* self) {
  if (Status s = journal_room(self->state.journal); !s.ok()) return reply_refused(self, s.error().message);
  return std::nullopt;
}

caf::behavior ledger(LedgerSelf* self, std::shared_ptr<economy::Budget> budget, caf::actor journal, std::string session,
                     std::string budget_session) {
  self->state.budget = std::move(budget);
  self->state.journal = std::move(journal);
  self->state.budget_session = budget_session.empty() ? session : std::move(budget_session);
  self->state.session = std::move(session);
  // Held charges are paid for whether or not their records come: journaled
  // when the ledger stops.
  self->state.unsaved = unsaved_of(self->state.budget.get());
  self->set_exit_handler([self](caf::exit_msg& msg) {
    journal_held(self, self->state.held.keys_of(""), nullptr);
    self->quit(msg.reason);
  });
  return {
      [=](hire_atom, const economy::ModelCost& cost, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        if (auto behind = refuse_if_journal_behind(self)) return *behind;
        auto& b = *self->state.budget;
        if (Status s = b.hire(cost); !s.ok()) return reply_refused(self, s.error().message);
        Change c{{}, true};
        c.record(self, task, "resource", "hire", cost.create_resource_cost, agent, cost.name);
        if (cost.create_expense_cost > 0)
          c.record(self, task, "expense", "hire", cost.create_expense_cost, agent, cost.name);
        return commit(self, std::move(c), reply_ok(self), [self, cost] { self->state.budget->undo_hire(cost); });
      },
      [=](fire_atom, const economy::ModelCost& cost, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        if (Status s = self->state.budget->fire(cost); !s.ok()) return reply_refused(self, s.error().message);
        Change c{{}, true};
        c.record(self, task, "resource", "fire_refund", -cost.create_resource_cost, agent, cost.name);
        return commit(self, std::move(c), reply_ok(self));
      },
      [=](reserve_atom, const economy::ModelCost& cost, int64_t est_in, int64_t max_out, const std::string& /*agent*/,
          const std::string& /*task*/) -> caf::result<LedgerReply> {
        if (auto behind = refuse_if_journal_behind(self)) return *behind;
        // The hold lives in the Budget only (after a restart nothing is in
        // flight): it is settled or released, and the journal gets one row
        // for the call when it is (not two).
        auto r = self->state.budget->reserve_ask(cost, est_in, max_out);
        if (!r.ok()) return reply_refused(self, r.error().message);
        LedgerReply out = reply_ok(self);
        out.reservation = *r;
        return out;
      },
      [=](settle_atom, const economy::AskReservation& r, int64_t in, int64_t out, const std::string& agent,
          const std::string& task, int64_t kept_call, int64_t kept_step) -> caf::result<LedgerReply> {
        auto& b = *self->state.budget;
        const double usd = economy::Budget::expense_for(r.cost, in, out);
        const KeptWith kept{kept_call, kept_step};
        const bool held = holds(self, task, kept);
        double over = 0;
        economy::BudgetChange moved;
        if (held) {
          moved = settle_unsaved(self, [&] {
            over = b.settle_ask(r, in, out);
            // As settle_ask moved it: the expense ledger (while it counts),
            // the salary's internal cost, the overshoot.
            return economy::BudgetChange{0, b.expense().enabled() ? usd : 0.0, r.cost.invoke_resource_cost, over,
                                         over > 0 ? 1 : 0};
          });
        } else {
          over = b.settle_ask(r, in, out);
        }
        Change c{{}, true};
        c.record(self, task, "expense", "ask_settle", usd, agent,
                 std::to_string(in) + " in / " + std::to_string(out) + " out tokens");
        // The excess is already in ask_settle's amount: this entry says that
        // the hold, a true upper bound, was not enough (not a second charge).
        if (over > 0) {
          std::ostringstream why;
          why << r.cost.name << " billed " << economy::format_amount(usd) << " (" << in << " in / " << out
              << " out tokens), " << economy::format_amount(over) << " more than the "
              << economy::format_amount(r.expense_held) << " reserved";
          c.record(self, task, "expense", "overshoot", over, agent, why.str());
        }
        LedgerReply reply = reply_ok(self);
        reply.reservation = r;
        if (held)
          hold(self, task, kept, std::move(c), moved);
        else
          record(self, std::move(c));
        return reply;
      },
      [=](cancel_atom, const economy::AskReservation& r, const std::string& agent, const std::string& task,
          int64_t kept_call, int64_t kept_step) -> caf::result<LedgerReply> {
        // Nothing was charged (the hold was never journaled), but the failed
        // call stays visible next to the settled ones, and goes with its
        // kept outcome (the failure) like a settlement.
        const KeptWith kept{kept_call, kept_step};
        const bool held = holds(self, task, kept);
        if (held) {
          settle_unsaved(self, [&] {
            self->state.budget->cancel_ask(r);
            return economy::BudgetChange{};  // a release moves nothing a snapshot records
          });
        } else {
          self->state.budget->cancel_ask(r);
        }
        std::ostringstream why;
        why << r.cost.name << ": call failed, hold of $" << r.expense_held << " released";
        Change c;
        c.record(self, task, "expense", "ask_release", 0, agent, why.str());
        if (held)
          hold(self, task, kept, std::move(c), economy::BudgetChange{});
        else
          record(self, std::move(c));
        return reply_ok(self);
      },
      // A tool call's declared cost, held like a model call of one "token"
      // priced at the tool's USD per call, journaled under the tool_* kinds.
      [=](reserve_atom, tool_atom, economy::ModelCost cost, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        if (auto behind = refuse_if_journal_behind(self)) return *behind;
        const double usd = cost.invoke_expense_cost;
        cost.invoke_expense_cost = usd * 1e6;
        cost.output_expense_cost = 0;
        auto r = self->state.budget->reserve_ask(cost, 1, 0);
        if (!r.ok()) return reply_refused(self, r.error().message);
        Change c;
        c.record(self, task, "expense", "tool_reserve", r->expense_held, agent, "tool " + cost.name);
        LedgerReply out = reply_ok(self);
        out.reservation = *r;
        record(self, std::move(c));
        return out;
      },
      [=](settle_atom, tool_atom, const economy::AskReservation& r, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        self->state.budget->settle_ask(r, 1, 0);
        Change c{{}, true};
        c.record(self, task, "expense", "tool_settle", economy::Budget::expense_for(r.cost, 1, 0), agent,
                 "tool " + r.cost.name);
        record(self, std::move(c));
        return reply_ok(self);
      },
      [=](cancel_atom, tool_atom, const economy::AskReservation& r, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        self->state.budget->cancel_ask(r);
        Change c;
        c.record(self, task, "expense", "tool_release", -r.expense_held, agent, "tool " + r.cost.name);
        record(self, std::move(c));
        return reply_ok(self);
      },
      [=](hire_atom, tool_atom, const economy::ModelCost& cost, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        if (auto behind = refuse_if_journal_behind(self)) return *behind;
        auto& b = *self->state.budget;
        if (Status s = b.charge_create_costs(cost.create_resource_cost, cost.create_expense_cost); !s.ok())
          return reply_refused(self, s.error().message);
        Change c{{}, true};
        if (cost.create_resource_cost > 0)
          c.record(self, task, "resource", "tool_create", cost.create_resource_cost, agent, "tool " + cost.name);
        if (cost.create_expense_cost > 0)
          c.record(self, task, "expense", "tool_create", cost.create_expense_cost, agent, "tool " + cost.name);
        return commit(self, std::move(c), reply_ok(self), [self, cost] {
          self->state.budget->undo_create_costs(cost.create_resource_cost, cost.create_expense_cost);
        });
      },
      [=](fire_atom, tool_atom, const economy::ModelCost& cost, const std::string& agent,
          const std::string& task) -> caf::result<LedgerReply> {
        if (Status s = self->state.budget->refund_resource(cost.create_resource_cost); !s.ok())
          return reply_refused(self, s.error().message);
        Change c{{}, true};
        c.record(self, task, "resource", "tool_delete_refund", -cost.create_resource_cost, agent, "tool " + cost.name);
        return commit(self, std::move(c), reply_ok(self));
      },
      [=](outcome_atom, const std::string& task, int64_t seq, std::shared_ptr<driver::Outcome>& outcome) {
        // Here, not straight to the journal: with the charges held for this
        // call, and queued after every other charge sent here before it. A
        // record that cannot be written only means the call runs again on a
        // resume (and its charges go with it). Encoded on the journal's
        // thread, off the task's path.
        const Held::Key key{task, driver::id_of(*outcome), -1};  // before `outcome` moves into the op
        journal_held(self, {key},
                     [session = self->state.session, task, seq, outcome = std::move(outcome)](store::JournalStore& s) {
                       if (Status st = s.keep_outcome(session, task, seq, driver::encode(*outcome)); !st.ok())
                         std::fprintf(stderr, "kaisha: journal: outcome %lld of task %s not kept: %s\n",
                                      static_cast<long long>(seq), task.c_str(), st.error().message.c_str());
                     });
      },
      [=](ask_step_atom, const std::string& task, int64_t call, int64_t step, std::shared_ptr<driver::AskStep>& kept) {
        // As an outcome: with the charges held for this step.
        journal_held(self, {Held::Key{task, call, step}},
                     [session = self->state.session, task, call, step, kept = std::move(kept)](store::JournalStore& s) {
                       if (Status st = s.keep_ask_step(session, task, call, step, driver::encode(*kept)); !st.ok())
                         std::fprintf(stderr, "kaisha: journal: step %lld of ask %lld of task %s not kept: %s\n",
                                      static_cast<long long>(step), static_cast<long long>(call), task.c_str(),
                                      st.error().message.c_str());
                     });
      },
      [=](done_atom, const std::string& task, JournalOp& finish) {
        // The task ended: its end is written with what it still holds — its
        // last call, whose outcome comes after the end, and calls whose
        // answers will not be kept (it was canceled or failed first). A call
        // settled later is journaled at once.
        remember_ended(self, task);
        journal_held(self, self->state.held.keys_of(task), std::move(finish));
      },
      [=](done_atom) {
        // The process is about to end (interrupted): everything held goes now.
        journal_held(self, self->state.held.keys_of(""), nullptr);
        return true;
      },
      [=](sync_atom) -> caf::result<bool> {
        // The kept outcomes and steps went to the journal from here, in order:
        // a sync sent after them returns once they are committed.
        if (!self->state.journal) return true;
        auto promise = self->make_response_promise<bool>();
        self->request(self->state.journal, caf::infinite, sync_atom::value, JournalOp([](store::JournalStore&) {}))
            .then([promise](bool) mutable { promise.deliver(true); },
                  [promise](caf::error&) mutable { promise.deliver(false); });
        return promise;
      },
      [=](budget_atom) {
        LedgerReply r = reply_ok(self);
        r.view = self->state.budget->get_budget_json();
        return r;
      },
      [=](raise_atom, const std::string& which, double amount) -> caf::result<LedgerReply> {
        if (!(amount > 0)) return reply_refused(self, "the increase must be a positive amount");
        if (which == "expense")
          self->state.budget->raise_expense(amount);
        else if (which == "resource")
          self->state.budget->raise_resource(amount);
        else
          return reply_refused(self, "unknown budget '" + which + "' (expense or resource)");
        Change c{{}, true};
        c.record(self, "", which, "raise", amount, "user", "authorised increase");
        return commit(self, std::move(c), reply_ok(self));
      },
      [=](switch_atom, const std::string& which, bool on) {
        if (which == "resource")
          self->state.budget->set_resource_enabled(on);
        else if (which == "expense")
          self->state.budget->set_expense_enabled(on);
        return reply_ok(self);
      },
  };
}

}  // namespace

void after_ledger_synced(caf::event_based_actor* self, const caf::actor& ledger, std::function<void()> then) {
  if (!ledger) return then();
  self->request(ledger, caf::infinite, sync_atom::value)
      .then([then](bool) { then(); }, [then](caf::error&) { then(); });
}

caf::actor spawn_ledger(caf::actor_system& sys, std::shared_ptr<economy::Budget> budget, caf::actor journal,
                        std::string session_id, std::string budget_session) {
  return sys.spawn(ledger, std::move(budget), std::move(journal), std::move(session_id), std::move(budget_session));
}

}  // namespace kaisha::actors
