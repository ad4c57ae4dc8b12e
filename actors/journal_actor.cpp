#include "actors/journal_actor.hpp"

#include <iostream>

#include "actors/atoms.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

struct JournalState {
  std::shared_ptr<store::JournalStore> store;
  static inline const char* name = "journal";
};

caf::behavior journal(caf::stateful_actor<JournalState>* self, std::shared_ptr<store::JournalStore> store) {
  self->state.store = std::move(store);
  return {
      [=](journal_atom, const JournalOp& op) {
        if (self->state.store) op(*self->state.store);
      },
      [=](sync_atom, const JournalOp& op) {
        if (self->state.store) op(*self->state.store);
        return true;
      },
  };
}

// A failed write is reported on stderr; it never takes the company down.
void report(const Status& st) {
  if (!st.ok()) std::cerr << "kaisha: journal write failed: " << st.error().message << "\n";
}
template <class T>
void report(const Result<T>& r) {
  if (!r.ok()) std::cerr << "kaisha: journal write failed: " << r.error().message << "\n";
}

// Runs `op` on the writer; with no journal configured, nothing happens.
void post(const caf::actor& j, JournalOp op) {
  if (j) caf::anon_send(j, journal_atom::value, std::move(op));
}

}  // namespace

caf::actor spawn_journal(caf::actor_system& sys, std::shared_ptr<store::JournalStore> store) {
  // Detached: SQLite commits wait on the disk, and no scheduler thread may wait.
  return sys.spawn<caf::detached>(journal, std::move(store));
}

void journal_step(const caf::actor& j, StepRecord rec) {
  post(j, [rec = std::move(rec)](store::JournalStore& s) {
    store::StepRow row;
    row.session_id = rec.session_id;
    row.task_id = rec.task_id;
    row.agent = rec.agent;
    row.kind = rec.kind;
    row.payload = rec.payload;
    row.tokens_in = rec.tokens_in;
    row.tokens_out = rec.tokens_out;
    row.expense = rec.expense;
    report(s.append_step(row));
  });
}

void journal_ledger(const caf::actor& j, LedgerRecord rec) {
  post(j, [rec = std::move(rec)](store::JournalStore& s) {
    store::LedgerEntryRow row;
    row.session_id = rec.session_id;
    row.task_id = rec.task_id;
    row.ledger = rec.ledger;
    row.kind = rec.kind;
    row.amount = rec.amount;
    row.agent = rec.agent;
    row.reason = rec.reason;
    row.used_after = rec.used_after;
    row.total_after = rec.total_after;
    report(s.record_ledger_entry(row));
  });
}

void journal_budget_state(const caf::actor& j, std::string session_id, json state) {
  post(j, [session_id = std::move(session_id), state = std::move(state)](store::JournalStore& s) {
    report(s.save_budget_state(session_id, state));
  });
}

void journal_task_start(const caf::actor& j, const std::string& session_id, const std::string& task_id,
                        const std::string& input) {
  post(j, [=](store::JournalStore& s) {
    report(s.start_task(session_id, task_id, input));
  });
}

void journal_task_finish(const caf::actor& j, const std::string& session_id, const msg::TaskResult& r) {
  (void)session_id;
  store::TaskOutcome o;
  o.task_id = r.task_id;
  o.status = r.ok ? "done" : "failed";
  o.final_answer = r.answer;
  o.error = r.error;
  o.tokens_in = r.tokens_in;
  o.tokens_out = r.tokens_out;
  o.expense = r.expense;
  post(j, [o](store::JournalStore& s) {
    report(s.finish_task(o));
  });
}

void journal_agent_hired(const caf::actor& j, const std::string& session_id, const msg::AgentSpec& spec) {
  store::AgentRow a;
  a.session_id = session_id;
  a.name = spec.name;
  a.base_model = spec.base_model;
  a.model_ref = spec.model_ref;
  a.type = spec.type;
  a.system_prompt = spec.system_prompt;
  a.description = spec.description;
  a.costs = spec.costs;
  post(j, [a](store::JournalStore& s) {
    report(s.record_hire(a));
  });
}

void journal_agent_fired(const caf::actor& j, const std::string& session_id, const std::string& name) {
  post(j, [=](store::JournalStore& s) {
    report(s.record_fire(session_id, name));
  });
}

}  // namespace kaisha::actors
