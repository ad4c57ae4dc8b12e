#include "actors/system/journal_actor.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "actors/caf/atoms.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::actors {
namespace {
// Ledger changes to commit before their sender acts on them.
struct DurableWrite {
  std::vector<store::LedgerEntryRow> rows;
  std::string session;
  std::optional<economy::BudgetState> state;  // the budget after the rows
};
// Ledger rows with a kept record, and the budget after them.
struct ChargesWrite {
  std::vector<store::LedgerEntryRow> rows;
  std::string session;
  std::optional<economy::BudgetState> state;
  std::function<void(store::JournalStore&)> keep;
};
}  // namespace
}  // namespace kaisha::actors

// Only this file sends and receives budget snapshots and durable writes.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::economy::BudgetState)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::actors::DurableWrite)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::actors::ChargesWrite)

namespace kaisha::actors {
namespace {

using flush_atom = caf::atom_constant<caf::atom("flush")>;
using commit_atom = caf::atom_constant<caf::atom("commit")>;
using charges_atom = caf::atom_constant<caf::atom("charges")>;

// Group commit: writes that arrive within kBatchWindow of each other share
// one transaction (one fsync) instead of one each, which is what lets the
// journal keep up with hundreds of concurrent calls. A sync request flushes
// first, so "persist before acknowledging" still holds for whoever waits.
constexpr auto kBatchWindow = std::chrono::milliseconds(2);
// After a failed commit, how soon the journal tries again.
constexpr auto kRetryAfter = std::chrono::seconds(1);
constexpr size_t kMaxBatch = 1024;
// A batch of at least kEagerBatch writes is committed at once when nothing
// else waits in the mailbox: the journal's thread would idle otherwise, and a
// task's writes are then committed while the task runs (on the other core)
// instead of all after it, when whoever waits for them (a sync) has to sit
// through the whole batch. Under a burst the mailbox is never empty, so the
// batches still grow up to kMaxBatch.
constexpr size_t kEagerBatch = 8;

// Most of the journal's writes are on no reply path, so its thread runs at a
// lower CPU priority: in a burst of asks on a busy machine the actors
// answering them get the cores first, and the journal catches up right
// after. Nice 10 still gets about a tenth of a busy core's time, so it is
// never starved.
constexpr int kJournalNice = 10;

// Writes sent to one journal and not yet committed. Senders add before
// sending; the journal subtracts once a write is committed (or, for budget
// snapshots, taken into its newest-per-session map).
struct Backlog {
  explicit Backlog(size_t limit) : limit(limit) {}
  const size_t limit;
  std::atomic<size_t> queued{0};
  // Set while the journal's last commit failed (another process holds the
  // file, the disk is full): why, for journal_room's refusal.
  std::atomic<bool> failing{false};
  // Where each commit's duration goes (measure_journal_commits); null: nowhere.
  std::atomic<telemetry::Histogram*> commit_seconds{nullptr};
  std::mutex mu;
  std::string why;
  void fail(const std::string& w) {
    std::lock_guard<std::mutex> g(mu);
    why = w;
    failing.store(true);
  }
  std::string failure() {
    std::lock_guard<std::mutex> g(mu);
    return why;
  }
};

// Each journal's backlog, found by its actor: the senders hold only the
// caf::actor. Keyed by the actor's address (ids repeat across the actor
// systems of one process; an address is not reused while a handle lives).
class BacklogRegistry {
 public:
  static BacklogRegistry& instance() {
    static BacklogRegistry r;
    return r;
  }
  static const void* key(const caf::actor& j) { return caf::actor_cast<caf::abstract_actor*>(j); }
  void add(const void* key, std::shared_ptr<Backlog> b) {
    std::lock_guard<std::mutex> g(mu_);
    map_[key] = std::move(b);
  }
  void remove(const void* key) {
    std::lock_guard<std::mutex> g(mu_);
    map_.erase(key);
  }
  std::shared_ptr<Backlog> find(const caf::actor& j) {
    if (!j) return nullptr;
    std::lock_guard<std::mutex> g(mu_);
    auto it = map_.find(key(j));
    return it == map_.end() ? nullptr : it->second;
  }

 private:
  std::mutex mu_;
  std::unordered_map<const void*, std::shared_ptr<Backlog>> map_;
};

struct JournalState {
  std::shared_ptr<Backlog> backlog;
  std::shared_ptr<store::JournalStore> store;
  std::vector<JournalOp> pending;
  // Budget snapshots supersede each other: only the newest per session is
  // written, once per batch (offer()), whichever way it came.
  std::map<std::string, economy::BudgetState> budget_states;
  // Durable writes of this batch, each with whoever waits for its commit.
  struct Waiting {
    DurableWrite write;
    caf::typed_response_promise<std::string> promise;  // "" = committed, else why not
  };
  std::vector<Waiting> durable;
  bool flush_scheduled = false;
  bool niced = false;  // this actor's own (detached) thread has kJournalNice
  static inline const char* name = "journal";
};

using JournalSelf = caf::stateful_actor<JournalState>;

// Keeps `state` if it is the newest snapshot of `session`'s budget so far:
// the larger seq, or the later of two equal ones, which is what
// save_budget_state() would leave on disk had each been written in turn.
// Written at the end of the batch that holds the ledger rows it follows, so
// a crash leaves the rows and their budget or neither, with one snapshot
// (its JSON and its row) per batch instead of one per ledger change.
void offer(std::map<std::string, economy::BudgetState>& states, const std::string& session,
           economy::BudgetState state) {
  auto it = states.find(session);
  if (it == states.end())
    states.emplace(session, std::move(state));
  else if (state.seq >= it->second.seq)
    it->second = std::move(state);
}

void flush(JournalSelf* self) {
  auto& st = self->state;
  if (!std::exchange(st.niced, true))
    setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), kJournalNice);  // this thread only
  const bool failing = st.backlog->failing.load();
  if (st.pending.empty() && st.budget_states.empty() && st.durable.empty() && !failing) return;
  std::vector<JournalOp> ops;
  ops.swap(st.pending);
  std::vector<JournalState::Waiting> durable;
  durable.swap(st.durable);
  std::vector<std::string> outcome(durable.size());
  // Whether the batch commits or fails, these writes have left the queue
  // (but for a batch that never got its transaction: see below).
  struct Taken {
    Backlog& b;
    size_t n;
    ~Taken() { b.queued.fetch_sub(n); }
  } taken{*st.backlog, ops.size()};
  if (!st.store) {  // nothing to write to
    st.budget_states.clear();
    for (auto& w : durable) w.promise.deliver(std::string());
    return;
  }
  std::map<std::string, economy::BudgetState> states;  // taken once the ops have offered theirs
  bool ran = false;                                    // whether the batch got its transaction: its writes were made
  const auto started = std::chrono::steady_clock::now();
  Status s = st.store->write_batch([&]() -> Status {
    ran = true;
    for (auto& op : ops) op(*st.store);
    for (size_t i = 0; i < durable.size(); ++i) {
      Status w = st.store->atomically([&]() -> Status {
        for (const auto& row : durable[i].write.rows)
          if (auto id = st.store->record_ledger_entry(row); !id.ok()) return id.error();
        return Status::Ok();
      });
      if (!w.ok()) outcome[i] = w.error().message;
    }
    states.swap(st.budget_states);
    for (auto& [session, state] : states)
      if (Status w = st.store->save_budget_state(session, state.to_json()); !w.ok()) {
        std::cerr << "kaisha: journal write failed: " << w.error().message << "\n";
        // A ledger change is durable with the budget it leaves, or not at all.
        for (size_t i = 0; i < durable.size(); ++i)
          if (durable[i].write.state && durable[i].write.session == session && outcome[i].empty())
            outcome[i] = w.error().message;
      }
    return Status::Ok();
  });
  if (auto* h = st.backlog->commit_seconds.load(std::memory_order_relaxed))
    h->observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!s.ok()) {
    std::cerr << "kaisha: journal batch failed: " << s.error().message << "\n";
    // No new work starts until a commit succeeds again (journal_room); the
    // journal tries again on its own, with or without new writes.
    st.backlog->fail(s.error().message);
    self->delayed_send(self, kRetryAfter, flush_atom::value);
    if (!ran) {
      // Nothing was written (the transaction never began): the writes wait
      // for the next attempt, in their order, still counted as queued.
      taken.n = 0;
      ops.insert(ops.end(), std::make_move_iterator(st.pending.begin()), std::make_move_iterator(st.pending.end()));
      st.pending = std::move(ops);  // budget_states was not taken: it waits with them
    }
  } else {
    st.backlog->failing.store(false);
  }
  for (size_t i = 0; i < durable.size(); ++i) durable[i].promise.deliver(!s.ok() ? s.error().message : outcome[i]);
}

void enqueue(JournalSelf* self) {
  auto& st = self->state;
  // Someone waits for a commit: make it as soon as the mailbox holds nothing
  // more to join it (group commit without a timer on the reply path).
  if (!st.durable.empty() && (self->mailbox().empty() || st.pending.size() + st.durable.size() >= kMaxBatch))
    return flush(self);
  if (st.pending.size() >= kMaxBatch || (st.pending.size() >= kEagerBatch && self->mailbox().empty()))
    return flush(self);
  if (!st.flush_scheduled) {
    st.flush_scheduled = true;
    self->delayed_send(self, kBatchWindow, flush_atom::value);
  }
}

void report(const Status& st);

caf::behavior journal(JournalSelf* self, std::shared_ptr<store::JournalStore> store, std::shared_ptr<Backlog> backlog) {
  self->state.store = std::move(store);
  self->state.backlog = std::move(backlog);
  self->attach_functor([key = static_cast<const void*>(static_cast<caf::abstract_actor*>(self))] {
    BacklogRegistry::instance().remove(key);
  });
  // Nothing queued is lost when the runtime shuts down.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    flush(self);
    self->quit(msg.reason);
  });
  return {
      [=](journal_atom, JournalOp& op) {
        self->state.pending.push_back(std::move(op));
        enqueue(self);
      },
      [=](budget_atom, const std::string& session, const economy::BudgetState& state) {
        self->state.backlog->queued.fetch_sub(1);  // superseded or written with the next batch
        offer(self->state.budget_states, session, state);
        enqueue(self);
      },
      [=](commit_atom, DurableWrite& w) -> caf::result<std::string> {
        auto& st = self->state;
        if (w.state) offer(st.budget_states, w.session, *w.state);
        auto promise = self->make_response_promise<std::string>();
        st.durable.push_back({std::move(w), promise});
        enqueue(self);
        return promise;
      },
      [=](charges_atom, ChargesWrite& w) {
        self->state.pending.push_back([self, w = std::move(w)](store::JournalStore& s) mutable {
          // One savepoint inside the batch's transaction: the batch commits them together.
          Status done = s.atomically([&]() -> Status {
            for (const auto& row : w.rows)
              if (auto id = s.record_ledger_entry(row); !id.ok()) return id.error();
            if (w.keep) w.keep(s);
            return Status::Ok();
          });
          report(done);
          if (done.ok() && w.state) offer(self->state.budget_states, w.session, std::move(*w.state));
        });
        enqueue(self);
      },
      [=](flush_atom) {
        self->state.flush_scheduled = false;
        flush(self);
      },
      [=](sync_atom, const JournalOp& op) {
        flush(self);
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

// Counts one write in `j`'s backlog, before it is sent.
void count_one(const caf::actor& j) {
  if (auto b = BacklogRegistry::instance().find(j)) b->queued.fetch_add(1);
}

// Runs `op` on the writer; with no journal configured, nothing happens.
void post(const caf::actor& j, JournalOp op) {
  if (!j) return;
  count_one(j);
  caf::anon_send(j, journal_atom::value, std::move(op));
}

}  // namespace

caf::actor spawn_journal(caf::actor_system& sys, std::shared_ptr<store::JournalStore> store, JournalLimits limits) {
  auto backlog = std::make_shared<Backlog>(limits.max_backlog);
  // Detached: SQLite commits wait on the disk, and no scheduler thread may wait.
  caf::actor j = sys.spawn<caf::detached>(journal, std::move(store), backlog);
  BacklogRegistry::instance().add(BacklogRegistry::key(j), std::move(backlog));
  return j;
}

void measure_journal_commits(const caf::actor& j, telemetry::Histogram* commit_seconds) {
  if (auto b = BacklogRegistry::instance().find(j)) b->commit_seconds.store(commit_seconds);
}

bool journal_failing(const caf::actor& j) {
  auto b = BacklogRegistry::instance().find(j);
  return b && b->failing.load();
}

size_t journal_backlog(const caf::actor& j) {
  auto b = BacklogRegistry::instance().find(j);
  return b ? b->queued.load() : 0;
}

Status journal_room(const caf::actor& j) {
  auto b = BacklogRegistry::instance().find(j);
  if (!b) return Status::Ok();
  if (b->failing.load())
    return Error{"journal_failed",
                 "the journal cannot commit to its file (" + b->failure() + "); no new work starts until it can"};
  const size_t queued = b->queued.load();
  if (queued < b->limit) return Status::Ok();
  return Error{"journal_behind", "the journal is " + std::to_string(queued) + " writes behind the disk (the limit is " +
                                     std::to_string(b->limit) + "); no new work starts until it catches up"};
}

void journal_op(const caf::actor& j, std::function<void(store::JournalStore&)> op) { post(j, std::move(op)); }

// The rows are built here, by moving the record's fields, so that the journal's
// thread neither copies a payload (a JSON tree) nor frees the copy. A step is
// stamped when it happened, not when the writer (which may be batches behind
// under load) stores it, so that its time can be read as the event's.
void journal_step(const caf::actor& j, StepRecord rec) {
  if (!j) return;
  store::StepRow row;
  row.at = wall_ms();
  row.session_id = std::move(rec.session_id);
  row.task_id = std::move(rec.task_id);
  row.agent = std::move(rec.agent);
  row.kind = std::string(msg::event_kind_name(rec.kind));
  row.payload = std::move(rec.payload);
  row.tokens_in = rec.tokens_in;
  row.tokens_out = rec.tokens_out;
  row.expense = rec.expense;
  post(j, [row = std::move(row)](store::JournalStore& s) { report(s.append_step(row)); });
}

static store::LedgerEntryRow ledger_row(LedgerRecord rec) {
  store::LedgerEntryRow row;
  row.session_id = std::move(rec.session_id);
  row.task_id = std::move(rec.task_id);
  row.ledger = std::move(rec.ledger);
  row.kind = std::move(rec.kind);
  row.amount = rec.amount;
  row.agent = std::move(rec.agent);
  row.reason = std::move(rec.reason);
  row.used_after = rec.used_after;
  row.total_after = rec.total_after;
  return row;
}

void journal_ledger(const caf::actor& j, LedgerRecord rec) {
  if (!j) return;
  post(j, [row = ledger_row(std::move(rec))](store::JournalStore& s) { report(s.record_ledger_entry(row)); });
}

void journal_with_charges(const caf::actor& j, std::vector<LedgerRecord> charges, std::string budget_session,
                          std::optional<economy::BudgetState> state, std::function<void(store::JournalStore&)> keep) {
  if (!j) return;
  ChargesWrite w;
  w.rows.reserve(charges.size());
  for (auto& rec : charges) w.rows.push_back(ledger_row(std::move(rec)));
  w.session = std::move(budget_session);
  w.state = std::move(state);
  w.keep = std::move(keep);
  count_one(j);
  caf::anon_send(j, charges_atom::value, std::move(w));
}

void journal_ledger_durably(caf::event_based_actor* self, const caf::actor& j, std::vector<LedgerRecord> records,
                            std::string session_id, std::optional<economy::BudgetState> state,
                            std::function<void(Status)> done) {
  if (!j) return done(Status::Ok());
  DurableWrite w;
  w.session = std::move(session_id);
  w.state = std::move(state);
  w.rows.reserve(records.size());
  for (auto& rec : records) w.rows.push_back(ledger_row(std::move(rec)));
  self->request(j, caf::infinite, commit_atom::value, std::move(w))
      .then(
          [done](const std::string& failed) {
            done(failed.empty() ? Status::Ok() : Status(Error{"journal", "the journal could not commit: " + failed}));
          },
          [done, self](caf::error& e) {
            done(Error{"journal", "the journal did not answer: " + self->system().render(e)});
          });
}

void journal_budget_state(const caf::actor& j, std::string session_id, economy::BudgetState state) {
  if (!j) return;
  count_one(j);
  caf::anon_send(j, budget_atom::value, std::move(session_id), std::move(state));
}

void journal_task_start(const caf::actor& j, const std::string& session_id, const std::string& task_id,
                        const std::string& input, const std::string& strategy) {
  // Stamped now, like a step, so that no step of the task reads as earlier than its start.
  const int64_t at = wall_ms();
  post(j, [=](store::JournalStore& s) { report(s.start_task(session_id, task_id, input, at, strategy)); });
}

JournalOp task_finish_op(const msg::TaskResult& r) {
  store::TaskOutcome o;
  o.task_id = r.task_id;
  o.status = r.ok ? "done" : r.canceled ? "canceled" : "failed";
  o.final_answer = r.answer;
  o.error = r.error;
  o.tokens_in = r.tokens_in;
  o.tokens_out = r.tokens_out;
  o.expense = r.expense;
  return [o](store::JournalStore& s) { report(s.finish_task(o)); };
}

void journal_task_finish(const caf::actor& j, const std::string& session_id, const msg::TaskResult& r) {
  (void)session_id;
  post(j, task_finish_op(r));
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
  post(j, [a](store::JournalStore& s) { report(s.record_hire(a)); });
}

void journal_agent_fired(const caf::actor& j, const std::string& session_id, const std::string& name) {
  post(j, [=](store::JournalStore& s) { report(s.record_fire(session_id, name)); });
}

}  // namespace kaisha::actors
