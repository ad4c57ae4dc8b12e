#include "runtime/store/journal_store.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store_test_util.hpp"

namespace kaisha::store {
namespace {

using ::testing::HasSubstr;
using JournalStoreTest = testing::TempDirTest;

std::unique_ptr<JournalStore> open_or_die(const std::string& path) {
  auto s = JournalStore::open(path);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return s ? std::move(*s) : nullptr;
}

SessionRow session(const std::string& id, int64_t at = 1000) {
  SessionRow s;
  s.id = id;
  s.created_at = at;
  s.config = json{{"budget", {{"expense_total", 10}}}};
  s.ceo_model = "ollama:llama3.2";
  return s;
}

TEST_F(JournalStoreTest, CreatesSchemaOnNewFile) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  EXPECT_GE(JournalStore::current_schema_version(), 1);
  auto sessions = j->list_sessions();
  ASSERT_TRUE(sessions);
  EXPECT_TRUE(sessions->empty());
  auto latest = j->latest_session();
  ASSERT_TRUE(latest);
  EXPECT_FALSE(latest->has_value());
}

TEST_F(JournalStoreTest, MigratesAnEmptyFile) {
  { std::ofstream out(file("empty.db")); }  // zero bytes: a valid, empty database
  auto j = open_or_die(file("empty.db"));
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  ASSERT_TRUE(j->create_session(session("s1")));
}

TEST_F(JournalStoreTest, SessionsRoundTripNewestFirst) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1", 1000)));
  ASSERT_TRUE(j->create_session(session("s2", 2000)));
  EXPECT_FALSE(j->create_session(session("s1", 3000)));  // duplicate id
  auto all = j->list_sessions();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, "s2");
  EXPECT_EQ((*all)[1].config["budget"]["expense_total"], 10);
  EXPECT_EQ((*all)[1].ceo_model, "ollama:llama3.2");
  EXPECT_EQ((*all)[1].status, "active");
  ASSERT_TRUE(j->set_session_status("s1", "closed"));
  auto s1 = j->get_session("s1");
  ASSERT_TRUE(s1 && s1->has_value());
  EXPECT_EQ((*s1)->status, "closed");
  EXPECT_EQ((*s1)->created_at, 1000);
  auto none = j->get_session("nope");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ((*j->latest_session())->id, "s2");
  EXPECT_EQ(j->set_session_status("nope", "x").error().code, "not_found");
}

// A server's sessions for its clients are found from its default session,
// and are never the "latest" one a door without --session continues.
TEST_F(JournalStoreTest, HostedSessionsAreFoundByTheirHostAndAreNeverTheLatest) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("main", 1000)));
  SessionRow a = session("a", 2000), b = session("b", 3000);
  a.config = json{{"host_session", "main"}, {"conversation", "ctx-1"}};
  b.config = json{{"host_session", "main"}, {"conversation", "ctx-2"}};
  ASSERT_TRUE(j->create_session(a));
  ASSERT_TRUE(j->create_session(b));
  ASSERT_TRUE(j->create_session(session("other", 500)));
  EXPECT_EQ((*j->latest_session())->id, "main");
  auto hosted = j->hosted_sessions("main");
  ASSERT_TRUE(hosted);
  ASSERT_EQ(hosted->size(), 2u);
  EXPECT_EQ((*hosted)[0].id, "a");
  EXPECT_EQ((*hosted)[1].config["conversation"], "ctx-2");
  EXPECT_TRUE(j->hosted_sessions("other")->empty());
  EXPECT_EQ(j->list_sessions()->size(), 4u);

  // Their tasks, with the host's own, newest first; another server's are not among them.
  ASSERT_TRUE(j->start_task("main", "t-main", "one", 4000));
  ASSERT_TRUE(j->start_task("a", "t-a", "two", 5000));
  ASSERT_TRUE(j->start_task("other", "t-other", "three", 5500));
  ASSERT_TRUE(j->start_task("b", "t-b", "four", 6000));
  auto tasks = j->hosted_tasks("main");
  ASSERT_TRUE(tasks);
  std::vector<std::string> ids;
  for (const auto& t : *tasks) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"t-b", "t-a", "t-main"}));
  EXPECT_EQ(j->hosted_tasks("main", 2)->size(), 2u);
  EXPECT_EQ(j->hosted_tasks("main", 2)->front().id, "t-b");
}

// Sessions sharing one budget save it from their own journals, in whatever
// order their commits land: the snapshot with the largest seq stays.
TEST_F(JournalStoreTest, AnOlderBudgetSnapshotNeverOverwritesANewerOne) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  ASSERT_TRUE(j->save_budget_state("s1", json{{"seq", 5}, {"x", "five"}}));
  ASSERT_TRUE(j->save_budget_state("s1", json{{"seq", 3}, {"x", "three"}}));
  EXPECT_EQ((**j->load_budget_state("s1"))["x"], "five");
  ASSERT_TRUE(j->save_budget_state("s1", json{{"seq", 7}, {"x", "seven"}}));
  EXPECT_EQ((**j->load_budget_state("s1"))["x"], "seven");
  // A state saved before snapshots had a seq counts as 0.
  ASSERT_TRUE(j->save_budget_state("s1", json{{"x", "unnumbered"}}));
  EXPECT_EQ((**j->load_budget_state("s1"))["x"], "seven");
}

TEST_F(JournalStoreTest, TasksStartAndFinish) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  ASSERT_TRUE(j->start_task("s1", "t1", "write a poem", 5000));
  ASSERT_TRUE(j->start_task("s1", "t2", "fail please", 6000));
  EXPECT_FALSE(j->start_task("no-such-session", "t3", "x"));  // foreign key
  TaskOutcome done;
  done.task_id = "t1";
  done.final_answer = "roses";
  done.tokens_in = 120;
  done.tokens_out = 30;
  done.expense = 0.0125;
  done.finished_at = 7500;
  ASSERT_TRUE(j->finish_task(done));
  TaskOutcome failed;
  failed.task_id = "t2";
  failed.status = "failed";
  failed.error = "model unreachable";
  failed.finished_at = 6100;
  ASSERT_TRUE(j->finish_task(failed));
  TaskOutcome bad_status = done;
  bad_status.status = "weird";
  EXPECT_FALSE(j->finish_task(bad_status));  // CHECK constraint
  auto ts = j->tasks("s1");
  ASSERT_TRUE(ts);
  ASSERT_EQ(ts->size(), 2u);
  const TaskRow& t1 = (*ts)[0];
  EXPECT_EQ(t1.id, "t1");
  EXPECT_EQ(t1.input, "write a poem");
  EXPECT_EQ(t1.status, "done");
  EXPECT_EQ(t1.final_answer, "roses");
  EXPECT_EQ(t1.wall_ms, 2500);
  EXPECT_EQ(t1.tokens_in, 120);
  EXPECT_EQ(t1.tokens_out, 30);
  EXPECT_DOUBLE_EQ(t1.expense, 0.0125);
  EXPECT_EQ((*ts)[1].status, "failed");
  EXPECT_EQ((*ts)[1].error, "model unreachable");
  auto t = j->get_task("t2");
  ASSERT_TRUE(t && t->has_value());
  EXPECT_EQ((*t)->wall_ms, 100);
  auto totals = j->spend_totals("s1");
  ASSERT_TRUE(totals);
  EXPECT_EQ(totals->tasks, 2);
  EXPECT_EQ(totals->tasks_done, 1);
  EXPECT_EQ(totals->tasks_failed, 1);
  EXPECT_EQ(totals->tokens_in, 120);
  EXPECT_DOUBLE_EQ(totals->expense, 0.0125);
  EXPECT_EQ(totals->wall_ms, 2600);
}

TEST_F(JournalStoreTest, StepsNumberPerTask) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  ASSERT_TRUE(j->start_task("s1", "t1", "a"));
  ASSERT_TRUE(j->start_task("s1", "t2", "b"));
  auto step = [&](const std::string& task, const std::string& kind) {
    StepRow s;
    s.session_id = "s1";
    s.task_id = task;
    s.agent = "ceo";
    s.kind = kind;
    s.payload = json{{"text", kind + " of " + task}};
    s.tokens_in = 10;
    s.expense = 0.001;
    auto id = j->append_step(s);
    EXPECT_TRUE(id) << (id ? "" : id.error().message);
    return id ? *id : 0;
  };
  int64_t a1 = step("t1", "llm_request");
  int64_t a2 = step("t1", "llm_response");
  step("t2", "tool_call");
  step("t1", "answer");
  step("", "note");  // session-level
  EXPECT_GT(a2, a1);
  StepRow bad;
  bad.session_id = "s1";
  bad.task_id = "t1";
  bad.kind = "dance";
  EXPECT_FALSE(j->append_step(bad));

  auto t1 = j->task_steps("t1");
  ASSERT_TRUE(t1);
  ASSERT_EQ(t1->size(), 3u);
  EXPECT_EQ((*t1)[0].seq, 1);
  EXPECT_EQ((*t1)[1].seq, 2);
  EXPECT_EQ((*t1)[2].seq, 3);
  EXPECT_EQ((*t1)[0].id, a1);
  EXPECT_EQ((*t1)[2].kind, "answer");
  EXPECT_EQ((*t1)[1].payload["text"], "llm_response of t1");
  EXPECT_EQ((*t1)[0].tokens_in, 10);
  EXPECT_DOUBLE_EQ((*t1)[0].expense, 0.001);
  auto t2 = j->task_steps("t2");
  ASSERT_EQ(t2->size(), 1u);
  EXPECT_EQ((*t2)[0].seq, 1);
  auto last2 = j->task_steps("t1", 2);
  ASSERT_TRUE(last2);
  ASSERT_EQ(last2->size(), 2u);
  EXPECT_EQ((*last2)[0].seq, 2);  // the last two, oldest first
  EXPECT_EQ((*last2)[1].seq, 3);
  auto all = j->session_steps("s1");
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ(all->back().task_id, "");
  EXPECT_EQ(all->back().seq, 1);
  EXPECT_EQ(j->spend_totals()->steps, 5);
}

TEST_F(JournalStoreTest, AgentsHireFireLost) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  AgentRow a;
  a.session_id = "s1";
  a.name = "PoetAgent";
  a.base_model = "mistral";
  a.model_ref = "ollama:mistral";
  a.type = "local";
  a.system_prompt = "You write poems.";
  a.description = "poet";
  a.costs = json{{"create_resource_cost", 20}, {"invoke_resource_cost", 100}};
  a.hired_at = 100;
  ASSERT_TRUE(j->record_hire(a));
  AgentRow b = a;
  b.name = "MathAgent";
  b.hired_at = 110;
  ASSERT_TRUE(j->record_hire(b));
  ASSERT_TRUE(j->record_fire("s1", "PoetAgent", 200));
  EXPECT_EQ(j->record_fire("s1", "PoetAgent", 201).error().code, "not_found");  // not hired now
  a.hired_at = 300;                                                             // re-hire the same name
  ASSERT_TRUE(j->record_hire(a));
  ASSERT_TRUE(j->mark_agent_lost("s1", "MathAgent", 400));

  auto active = j->active_agents("s1");
  ASSERT_TRUE(active);
  ASSERT_EQ(active->size(), 1u);
  EXPECT_EQ((*active)[0].name, "PoetAgent");
  EXPECT_EQ((*active)[0].hired_at, 300);
  EXPECT_EQ((*active)[0].costs["create_resource_cost"], 20);
  EXPECT_EQ((*active)[0].system_prompt, "You write poems.");
  auto all = j->all_agents("s1");
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].state, "fired");
  EXPECT_EQ((*all)[0].fired_at, 200);
  EXPECT_EQ((*all)[1].state, "lost");
  EXPECT_EQ((*all)[2].state, "hired");
}

// Hire, fire and hire again within one millisecond: both hires are kept.
TEST_F(JournalStoreTest, ReHireInTheSameMillisecondKeepsBothRows) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  AgentRow a;
  a.session_id = "s1";
  a.name = "Poet";
  a.base_model = "mistral";
  a.hired_at = 500;
  ASSERT_TRUE(j->record_hire(a));
  ASSERT_TRUE(j->record_fire("s1", "Poet", 500));
  ASSERT_TRUE(j->record_hire(a));
  auto all = j->all_agents("s1");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].state, "fired");
  EXPECT_EQ((*all)[1].state, "hired");
  EXPECT_EQ((*all)[1].hired_at, 501);
}

TEST_F(JournalStoreTest, LedgerEntriesBudgetStateAndCostTable) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  ASSERT_TRUE(j->start_task("s1", "t1", "x"));
  LedgerEntryRow e;
  e.session_id = "s1";
  e.task_id = "t1";
  e.ledger = "resource";
  e.kind = "hire";
  e.amount = 20;
  e.agent = "PoetAgent";
  e.reason = "AgentCreator";
  e.used_after = 20;
  e.total_after = 100;
  auto id1 = j->record_ledger_entry(e);
  ASSERT_TRUE(id1);
  e.task_id = "";
  e.ledger = "expense";
  e.kind = "raise";
  e.amount = 5;
  ASSERT_TRUE(j->record_ledger_entry(e));
  e.kind = "bogus";
  EXPECT_FALSE(j->record_ledger_entry(e));
  auto entries = j->ledger_entries("s1");
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].id, *id1);
  EXPECT_EQ((*entries)[0].kind, "hire");
  EXPECT_EQ((*entries)[0].task_id, "t1");
  EXPECT_DOUBLE_EQ((*entries)[0].used_after, 20);
  EXPECT_EQ((*entries)[1].task_id, "");
  EXPECT_EQ((*entries)[1].ledger, "expense");

  auto none = j->load_budget_state("s1");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  json state{{"resource", {{"total", 100}, {"used", 20}}}};
  ASSERT_TRUE(j->save_budget_state("s1", state));
  state["resource"]["used"] = 40;
  ASSERT_TRUE(j->save_budget_state("s1", state));  // upsert
  auto loaded = j->load_budget_state("s1");
  ASSERT_TRUE(loaded && loaded->has_value());
  EXPECT_EQ(**loaded, state);

  json table{{"mistral", {{"create_resource_cost", 20}}}, {"llama3.2", {{"create_resource_cost", 10}}}};
  ASSERT_TRUE(j->save_cost_table("s1", table));
  table.erase("llama3.2");
  ASSERT_TRUE(j->save_cost_table("s1", table));  // replaces the snapshot
  auto ct = j->load_cost_table("s1");
  ASSERT_TRUE(ct && ct->has_value());
  EXPECT_EQ(**ct, table);
}

// Inside a batch the next seq comes from memory; it must stay dense across
// interleaved tasks, session-level steps, a failed step, a rolled-back batch
// and another writer between batches.
TEST_F(JournalStoreTest, StepNumbersInBatchesStayDenseWithAnotherWriter) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  ASSERT_TRUE(j->start_task("s1", "t1", "a"));
  ASSERT_TRUE(j->start_task("s1", "t2", "b"));
  auto row = [](const std::string& task, const std::string& kind = "note") {
    StepRow s;
    s.session_id = "s1";
    s.task_id = task;
    s.kind = kind;
    return s;
  };
  ASSERT_TRUE(j->write_batch([&]() -> Status {
    for (const char* t : {"t1", "t2", "t1", "", "t1", ""})
      if (auto r = j->append_step(row(t)); !r) return r.error();
    EXPECT_FALSE(j->append_step(row("t1", "dance")));  // refused: takes no number
    return Status::Ok();
  }));
  // A batch that rolls back leaves no numbers behind.
  EXPECT_FALSE(j->write_batch([&]() -> Status {
    if (auto r = j->append_step(row("t1")); !r) return r.error();
    return Error{"test", "roll back"};
  }));
  {
    auto other = open_or_die(file("k.db"));  // another writer between batches
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->append_step(row("t1")));
    ASSERT_TRUE(other->append_step(row("")));
  }
  ASSERT_TRUE(j->write_batch([&]() -> Status {
    if (auto r = j->append_step(row("t1")); !r) return r.error();
    if (auto r = j->append_step(row("")); !r) return r.error();
    return Status::Ok();
  }));
  auto expect_dense = [&](const std::vector<StepRow>& steps, size_t n) {
    ASSERT_EQ(steps.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(steps[i].seq, int64_t(i + 1)) << i;
  };
  expect_dense(*j->task_steps("t1"), 5);
  expect_dense(*j->task_steps("t2"), 1);
  auto all = j->session_steps("s1");
  ASSERT_TRUE(all);
  std::vector<StepRow> session_level;
  for (auto& s : *all)
    if (s.task_id.empty()) session_level.push_back(s);
  expect_dense(session_level, 4);
}

TEST_F(JournalStoreTest, BatchCommitsTogetherOrNotAtAll) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  Status s = j->write_batch([&]() -> Status {
    if (Status e = j->start_task("s1", "t1", "x"); !e) return e;
    return j->start_task("s1", "t1", "duplicate");  // fails: the whole batch rolls back
  });
  EXPECT_FALSE(s);
  EXPECT_TRUE(j->tasks("s1")->empty());
  ASSERT_TRUE(j->write_batch([&]() -> Status {
    if (Status e = j->start_task("s1", "t1", "x"); !e) return e;
    return j->start_task("s1", "t2", "y");
  }));
  EXPECT_EQ(j->tasks("s1")->size(), 2u);
}

TEST_F(JournalStoreTest, SurvivesReopen) {
  {
    auto j = open_or_die(file("k.db"));
    ASSERT_TRUE(j->create_session(session("s1")));
    ASSERT_TRUE(j->start_task("s1", "t1", "x"));
    StepRow s;
    s.session_id = "s1";
    s.task_id = "t1";
    s.kind = "note";
    ASSERT_TRUE(j->append_step(s));
    ASSERT_TRUE(j->append_step(s));
    ASSERT_TRUE(j->save_budget_state("s1", json{{"x", 1}}));
  }
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j);
  EXPECT_EQ((*j->latest_session())->id, "s1");
  EXPECT_EQ(j->tasks("s1")->size(), 1u);
  EXPECT_EQ((**j->load_budget_state("s1"))["x"], 1);
  StepRow s;
  s.session_id = "s1";
  s.task_id = "t1";
  s.kind = "note";
  ASSERT_TRUE(j->append_step(s));
  EXPECT_EQ(j->task_steps("t1")->back().seq, 3);  // numbering continues after restart
}

TEST_F(JournalStoreTest, ReaderSeesCommittedWritesWhileWriterIsOpen) {
  auto w = open_or_die(file("k.db"));
  ASSERT_TRUE(w->create_session(session("s1")));
  auto r = JournalStore::open_read_only(file("k.db"));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(w->start_task("s1", "t1", "x"));
  EXPECT_EQ((*r)->tasks("s1")->size(), 1u);  // committed before returning

  // The reader reads while the writer keeps writing from another thread.
  std::thread writer([&] {
    StepRow s;
    s.session_id = "s1";
    s.task_id = "t1";
    s.kind = "note";
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(w->append_step(s));
  });
  size_t last = 0;
  bool monotonic = true;
  for (int i = 0; i < 50; ++i) {
    auto steps = (*r)->task_steps("t1");
    ASSERT_TRUE(steps) << steps.error().message;
    if (steps->size() < last) monotonic = false;
    last = steps->size();
  }
  writer.join();
  EXPECT_TRUE(monotonic);
  EXPECT_EQ((*r)->task_steps("t1")->size(), 100u);
  // A read-only instance cannot write.
  EXPECT_FALSE((*r)->create_session(session("s2")));
}

// Another process writes to the journal while this one holds it open for
// writing and reads it: WAL and busy_timeout make both work.
TEST_F(JournalStoreTest, AnotherProcessWritesWhileThisOneHoldsTheFile) {
  // The child is forked before this process opens the journal, while it has
  // one thread (forking a threaded process is unsafe, and ThreadSanitizer
  // refuses it), and starts writing once the parent holds the file.
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // child: its own connection, 50 steps
    close(go[1]);
    char byte = 0;
    if (read(go[0], &byte, 1) != 1) _exit(4);
    auto other = JournalStore::open(file("k.db"));
    if (!other) _exit(2);
    StepRow s;
    s.session_id = "s1";
    s.task_id = "t1";
    s.kind = "note";
    for (int i = 0; i < 50; ++i)
      if (!(*other)->append_step(s)) _exit(3);
    _exit(0);
  }
  close(go[0]);
  auto mine = open_or_die(file("k.db"));
  ASSERT_TRUE(mine->create_session(session("s1")));
  ASSERT_TRUE(mine->start_task("s1", "t1", "x"));
  ASSERT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  StepRow s;
  s.session_id = "s1";
  s.task_id = "t1";
  s.kind = "note";
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(mine->append_step(s));  // both write
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto steps = mine->task_steps("t1");
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), 100u);
  for (size_t i = 0; i < steps->size(); ++i) EXPECT_EQ((*steps)[i].seq, static_cast<int64_t>(i + 1));
}

TEST_F(JournalStoreTest, CorruptFileGivesClearError) {
  {
    std::ofstream out(file("journal.db"));
    for (int i = 0; i < 100; ++i) out << "garbage that is not SQLite\n";
  }
  auto j = JournalStore::open(file("journal.db"));
  ASSERT_FALSE(j);
  EXPECT_THAT(j.error().message, HasSubstr(file("journal.db")));
  EXPECT_THAT(j.error().message, HasSubstr("not a database"));
  auto r = JournalStore::open_read_only(file("journal.db"));
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr(file("journal.db")));
}

TEST_F(JournalStoreTest, ReadOnlyOpensAfterTheWriterClosed) {
  {
    auto w = open_or_die(file("k.db"));
    ASSERT_TRUE(w->create_session(session("s1")));
  }
  auto r = JournalStore::open_read_only(file("k.db"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*(*r)->latest_session())->id, "s1");
}

TEST_F(JournalStoreTest, ReadOnlyRefusesUnmigratedOrMissingFile) {
  auto missing = JournalStore::open_read_only(file("none.db"));
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr(file("none.db")));
  { std::ofstream out(file("empty.db")); }
  auto empty = JournalStore::open_read_only(file("empty.db"));
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message, HasSubstr("schema version 0"));
}

// Another program's SQLite file: one clear line, nothing written into it
// (and not a page of migration SQL, which a failed CREATE TABLE used to show).
TEST_F(JournalStoreTest, AnotherProgramsDatabaseIsRefusedInOneLine) {
  const std::string path = file("other.db");
  for (const char* table : {"CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT)",
                            "CREATE TABLE photos (id INTEGER PRIMARY KEY, blob BLOB)"}) {
    std::filesystem::remove(path);
    {
      auto db = SqliteDb::open(path);
      ASSERT_TRUE(db);
      ASSERT_TRUE((*db)->exec(table));
    }
    for (bool read_only : {false, true}) {
      auto j = read_only ? JournalStore::open_read_only(path) : JournalStore::open(path);
      ASSERT_FALSE(j) << table;
      EXPECT_EQ(j.error().message, path + " is not a kaisha journal (no kaisha schema version); choose another file");
    }
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db);
    auto q = (*db)->prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
    ASSERT_TRUE(q);
    ASSERT_TRUE(q->step());
    EXPECT_EQ(q->column_int(0), 1) << "nothing was added to the other program's file";
  }
}

// An error of a long statement names its first line, not the whole text.
TEST_F(JournalStoreTest, SqlErrorsQuoteOneLineOfTheStatement) {
  auto db = SqliteDb::open(file("x.db"));
  ASSERT_TRUE(db);
  std::string sql = "CREATE TABLE t (a INTEGER);\nCREATE TABLE t (b INTEGER);\n";
  for (int i = 0; i < 80; ++i) sql += "CREATE TABLE t" + std::to_string(i) + " (c INTEGER);\n";
  Status s = (*db)->exec(sql);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << s.error().message;
  EXPECT_LT(s.error().message.size(), 300u) << s.error().message;
  EXPECT_THAT(s.error().message, HasSubstr("already exists"));
}

TEST_F(JournalStoreTest, NewerSchemaIsRefused) {
  { auto j = open_or_die(file("k.db")); }
  {
    auto db = SqliteDb::open(file("k.db"));
    ASSERT_TRUE(db);
    ASSERT_TRUE((*db)->exec("UPDATE schema_version SET version = 999"));
  }
  auto j = JournalStore::open(file("k.db"));
  ASSERT_FALSE(j);
  EXPECT_THAT(j.error().message, HasSubstr("999"));
}

// A journal written at schema version 3 (steps_by_session_task) is migrated
// on open: that index is gone, session-level steps are numbered through the
// partial index (not a scan), and numbering carries on from the old rows.
TEST_F(JournalStoreTest, MigratesVersion3ToThePartialSessionLevelIndex) {
  const std::string path = file("k.db");
  {
    auto j = open_or_die(path);
    ASSERT_TRUE(j->create_session(session("s1")));
    ASSERT_TRUE(j->start_task("s1", "t1", "a"));
    StepRow s;
    s.session_id = "s1";
    s.kind = "note";
    ASSERT_TRUE(j->append_step(s));  // session-level, seq 1
    s.task_id = "t1";
    ASSERT_TRUE(j->append_step(s));  // t1, seq 1
  }
  {  // Back to what a version-3 kaisha left on disk.
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE((*db)->exec(
        "DROP INDEX steps_session_level; DROP INDEX agents_hired; "
        "DROP TABLE task_outcomes; DROP TABLE ask_steps; DROP TABLE protocol_handles; DROP TABLE strategy_state; "
        "ALTER TABLE tasks DROP COLUMN strategy; "
        "CREATE INDEX steps_by_session_task ON steps(session_id, task_id, seq); "
        "UPDATE schema_version SET version = 3"));
  }
  auto j = open_or_die(path);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  auto indexes = (*db)->prepare(
      "SELECT group_concat(name, ',') FROM "
      "(SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='steps' "
      "AND sql IS NOT NULL ORDER BY name)");
  ASSERT_TRUE(indexes);
  ASSERT_TRUE(indexes->step());
  EXPECT_EQ(indexes->column_text(0), "steps_by_session,steps_by_task,steps_session_level");
  auto plan = (*db)->prepare(
      "EXPLAIN QUERY PLAN SELECT COALESCE(MAX(seq), 0) + 1 FROM steps "
      "WHERE session_id = 's1' AND task_id IS NULL");
  ASSERT_TRUE(plan);
  std::string detail;
  while (*plan->step()) detail += plan->column_text(3) + "\n";
  EXPECT_THAT(detail, HasSubstr("steps_session_level")) << detail;
  StepRow s;
  s.session_id = "s1";
  s.kind = "note";
  ASSERT_TRUE(j->append_step(s));
  s.task_id = "t1";
  ASSERT_TRUE(j->append_step(s));
  auto all = j->session_steps("s1");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[2].task_id, "");
  EXPECT_EQ((*all)[2].seq, 2);
  EXPECT_EQ((*all)[3].task_id, "t1");
  EXPECT_EQ((*all)[3].seq, 2);
}

// Firing finds the current hire through the hired-agents index, not by
// walking every earlier hire of that name; the right row is still the one fired.
TEST_F(JournalStoreTest, FireFindsTheCurrentHireThroughAnIndex) {
  const std::string path = file("k.db");
  auto j = open_or_die(path);
  ASSERT_TRUE(j->create_session(session("s1")));
  for (int64_t at = 1; at <= 20; ++at) {  // Worker1 hired and fired per task
    AgentRow a;
    a.session_id = "s1";
    a.name = "Worker1";
    a.hired_at = at;
    ASSERT_TRUE(j->record_hire(a));
    if (at < 20) {
      ASSERT_TRUE(j->record_fire("s1", "Worker1", at));
    }
  }
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  auto plan = (*db)->prepare(
      "EXPLAIN QUERY PLAN UPDATE agents SET state='fired', fired_at=1 "
      "WHERE session_id='s1' AND name='Worker1' AND state='hired'");
  ASSERT_TRUE(plan);
  std::string detail;
  while (*plan->step()) detail += plan->column_text(3) + "\n";
  EXPECT_THAT(detail, HasSubstr("agents_hired")) << detail;
  auto active = j->active_agents("s1");
  ASSERT_TRUE(active);
  ASSERT_EQ(active->size(), 1u);
  EXPECT_EQ((*active)[0].hired_at, 20);
  ASSERT_TRUE(j->record_fire("s1", "Worker1", 21));
  EXPECT_TRUE(j->active_agents("s1")->empty());
  EXPECT_FALSE(j->record_fire("s1", "Worker1", 22));  // nobody of that name is hired now
  auto all = j->all_agents("s1");
  ASSERT_EQ(all->size(), 20u);
  EXPECT_EQ(all->back().fired_at, 21);
  EXPECT_EQ(all->front().fired_at, 1);
}

// The values a column's CHECK constraint allows, as written in the schema:
// every quoted string inside "CHECK (<column> ...)".
std::vector<std::string> schema_values(SqliteDb& db, const std::string& table, const std::string& column) {
  auto q = db.prepare("SELECT sql FROM sqlite_master WHERE type='table' AND name=?1");
  EXPECT_TRUE(q);
  q->bind(1, table);
  EXPECT_TRUE(q->step());
  const std::string sql = q->column_text(0);
  const std::string open = "CHECK (" + column + " ";
  const size_t from = sql.find(open);
  EXPECT_NE(from, std::string::npos) << sql;
  if (from == std::string::npos) return {};
  size_t end = from + std::string("CHECK ").size();
  for (int depth = 0; end < sql.size(); ++end) {
    if (sql[end] == '(') ++depth;
    if (sql[end] == ')' && --depth == 0) break;
  }
  const std::string body = sql.substr(from, end - from);
  std::vector<std::string> out;
  for (size_t q1 = body.find('\''); q1 != std::string::npos; q1 = body.find('\'', body.find('\'', q1 + 1) + 1))
    out.push_back(body.substr(q1 + 1, body.find('\'', q1 + 1) - q1 - 1));
  return out;
}

template <size_t N>
std::vector<std::string> listed(const std::array<std::string_view, N>& values) {
  return std::vector<std::string>(values.begin(), values.end());
}

// The writer's lists (journal_rows.hpp) and the schema's CHECK constraints
// are the same lists: SQLite's own checks pass on whatever the writer writes.
TEST_F(JournalStoreTest, TheWritersEnumerationsAreTheSchemasChecks) {
  const std::string path = file("k.db");
  ASSERT_TRUE(open_or_die(path));
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ(schema_values(**db, "steps", "kind"), listed(kStepKinds));
  EXPECT_EQ(schema_values(**db, "tasks", "status"), listed(kTaskStatuses));
  EXPECT_EQ(schema_values(**db, "agents", "state"), listed(kAgentStates));
  EXPECT_EQ(schema_values(**db, "ledger_entries", "ledger"), listed(kLedgers));
  EXPECT_EQ(schema_values(**db, "ledger_entries", "kind"), listed(kLedgerKinds));
}

// "ok", or the first problem PRAGMA integrity_check reports.
std::string integrity(const std::string& path) {
  auto db = SqliteDb::open(path);
  if (!db) return db.error().message;
  auto q = (*db)->prepare("PRAGMA integrity_check");
  if (!q) return q.error().message;
  auto row = q->step();
  if (!row) return row.error().message;
  return *row ? q->column_text(0) : "no answer";
}

// Runs `command` through the shell; its exit status (-1 if it could not run).
int shell(const std::string& command) {
  const int rc = std::system(command.c_str());
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Rows per table of a journal, as "table=N" lines, to compare two files
// (`leaving_out` the tables later migrations add).
std::string row_counts(const std::string& path, const std::set<std::string>& leaving_out = {}) {
  auto db = SqliteDb::open(path, SqliteDb::Options{true, false, 5000});
  if (!db) return db.error().message;
  auto tables = (*db)->prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::string out;
  std::vector<std::string> names;
  while (*tables->step()) names.push_back(tables->column_text(0));
  for (const auto& t : names) {
    if (leaving_out.count(t)) continue;
    auto n = (*db)->prepare("SELECT count(*) FROM \"" + t + "\"");
    (void)n->step();
    out += t + "=" + std::to_string(n->column_int(0)) + "\n";
  }
  return out;
}

// A journal holding every value of every enumeration: a task of each status,
// a step of each kind, an agent of each state, a ledger entry of each kind.
void write_every_value(JournalStore& j) {
  ASSERT_TRUE(j.create_session(session("s1")));
  for (auto status : kTaskStatuses) {
    const std::string id = "t-" + std::string(status);
    ASSERT_TRUE(j.start_task("s1", id, "タスク " + std::string(status) + " 🚀", 1000, "hashiru"));
    for (auto kind : kStepKinds) {
      StepRow st;
      st.session_id = "s1";
      st.task_id = id;
      st.agent = "ceo";
      st.kind = std::string(kind);
      ASSERT_TRUE(j.append_step(st));
    }
    for (auto ledger : kLedgers)
      for (auto kind : kLedgerKinds) {
        LedgerEntryRow e;
        e.session_id = "s1";
        e.task_id = id;
        e.ledger = std::string(ledger);
        e.kind = std::string(kind);
        e.amount = 0.25;
        ASSERT_TRUE(j.record_ledger_entry(e));
      }
    ASSERT_TRUE(j.keep_outcome("s1", id, 0, R"({"type":"budget","id":1,"view":{}})"));
    if (status == "running") continue;
    TaskOutcome o;
    o.task_id = id;
    o.status = std::string(status);
    o.final_answer = status == "done" ? "完了 ✅" : "";
    ASSERT_TRUE(j.finish_task(o)) << status;
  }
  for (auto state : kAgentStates) {
    AgentRow a;
    a.session_id = "s1";
    a.name = "Worker-" + std::string(state);
    a.hired_at = 100;
    ASSERT_TRUE(j.record_hire(a));
    if (state == "fired") {
      ASSERT_TRUE(j.record_fire("s1", a.name, 200));
    } else if (state == "lost") {
      ASSERT_TRUE(j.mark_agent_lost("s1", a.name, 200));
    }
  }
}

// SQLite's own check passes on a journal holding every value the writer
// writes; before schema 8 it failed ("CHECK constraint failed in tasks") as
// soon as a task was interrupted or canceled.
TEST_F(JournalStoreTest, AJournalWithEveryValuePassesSqlitesIntegrityCheck) {
  const std::string path = file("k.db");
  {
    auto j = open_or_die(path);
    ASSERT_TRUE(j);
    write_every_value(*j);
  }
  EXPECT_EQ(integrity(path), "ok");
}

// The layout of schema 7's tasks, steps and ledger_entries tables (their
// CHECK lists as schema 1 wrote them), as a journal of the version before
// this one has them. Rebuilt from a current journal's rows, with the checks
// off, as that version's writer wrote them.
const char* kSchema7Tables = R"sql(
PRAGMA foreign_keys=OFF;
PRAGMA ignore_check_constraints=ON;
CREATE TABLE tasks_v7 (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  input        TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  final_answer TEXT NOT NULL DEFAULT '',
  error        TEXT NOT NULL DEFAULT '',
  started_at   INTEGER NOT NULL,
  finished_at  INTEGER NOT NULL DEFAULT 0,
  wall_ms      INTEGER NOT NULL DEFAULT 0,
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0
, strategy TEXT NOT NULL DEFAULT '');
INSERT INTO tasks_v7 SELECT * FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v7 RENAME TO tasks;
CREATE INDEX tasks_by_session ON tasks(session_id, started_at);
CREATE TABLE steps_v7 (
  id           INTEGER PRIMARY KEY,
  session_id   TEXT NOT NULL REFERENCES sessions(id),
  task_id      TEXT REFERENCES tasks(id),
  seq          INTEGER NOT NULL,
  agent        TEXT NOT NULL DEFAULT '',
  kind         TEXT NOT NULL CHECK (kind IN ('llm_request', 'llm_response', 'tool_call',
                 'tool_result', 'hire', 'fire', 'ask', 'answer', 'refusal', 'error', 'note')),
  payload_json TEXT NOT NULL DEFAULT '{}',
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  expense      REAL NOT NULL DEFAULT 0,
  at           INTEGER NOT NULL
);
INSERT INTO steps_v7 SELECT * FROM steps;
DROP TABLE steps;
ALTER TABLE steps_v7 RENAME TO steps;
CREATE INDEX steps_by_task ON steps(task_id, seq);
CREATE INDEX steps_by_session ON steps(session_id, id);
CREATE INDEX steps_session_level ON steps(session_id, seq) WHERE task_id IS NULL;
CREATE TABLE ledger_entries_v7 (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions(id),
  task_id     TEXT REFERENCES tasks(id),
  ledger      TEXT NOT NULL CHECK (ledger IN ('resource', 'expense')),
  kind        TEXT NOT NULL CHECK (kind IN ('hire', 'fire_refund', 'ask_reserve', 'ask_settle',
                'ask_release', 'raise', 'ceo_call')),
  amount      REAL NOT NULL,
  agent       TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  used_after  REAL NOT NULL DEFAULT 0,
  total_after REAL NOT NULL DEFAULT 0,
  at          INTEGER NOT NULL
);
INSERT INTO ledger_entries_v7 SELECT * FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_v7 RENAME TO ledger_entries;
CREATE INDEX ledger_by_session ON ledger_entries(session_id, id);
DROP TABLE protocol_handles; DROP TABLE strategy_state;
UPDATE schema_version SET version = 7;
)sql";

// A journal at `path` holding every value (write_every_value), laid out as
// schema 7.
void write_version7_journal(const std::string& path) {
  {
    auto j = open_or_die(path);
    ASSERT_TRUE(j);
    write_every_value(*j);
  }
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec(kSchema7Tables)) << "could not lay the journal out as schema 7";
}

// A journal of the version before (schema 7) holding interrupted and canceled
// tasks and the tool and overshoot ledger kinds fails SQLite's integrity
// check; opened by this version it is rebuilt with every row and id kept,
// and passes.
TEST_F(JournalStoreTest, AVersion7JournalIsRebuiltWithEveryRowAndPassesTheIntegrityCheck) {
  const std::string path = file("v7.db");
  ASSERT_NO_FATAL_FAILURE(write_version7_journal(path));
  EXPECT_THAT(integrity(path), HasSubstr("CHECK constraint failed in tasks"));
  const std::string rows_before = row_counts(path);
  {
    auto ro = JournalStore::open_read_only(path);
    ASSERT_FALSE(ro);
    EXPECT_THAT(ro.error().message, HasSubstr("journal schema version 7"));
  }
  auto j = open_or_die(path);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  EXPECT_EQ(integrity(path), "ok");
  EXPECT_EQ(row_counts(path, {"protocol_handles", "strategy_state"}), rows_before);  // tables of schemas 9 and 10
  EXPECT_EQ((*j->get_task("t-interrupted"))->status, "interrupted");
  EXPECT_EQ((*j->get_task("t-canceled"))->status, "canceled");
  EXPECT_EQ(j->kept_outcomes("t-interrupted")->size(), 1u);
  auto steps = j->task_steps("t-interrupted");
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), kStepKinds.size());
  EXPECT_EQ(steps->front().seq, 1);
  // The rebuilt tables keep their checks and their foreign keys.
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  EXPECT_FALSE((*db)->exec("UPDATE tasks SET status = 'paused' WHERE id = 't-done'"));
  EXPECT_FALSE((*db)->exec(
      "INSERT INTO steps (session_id, task_id, seq, kind, at) VALUES ('s1', 'no-such-task', 1, 'note', 1)"));
  // And the store still writes every value.
  StepRow more;
  more.session_id = "s1";
  more.task_id = "t-running";
  more.kind = "note";
  EXPECT_TRUE(j->append_step(more));
}

// A journal with rows whose task is gone (as a partial restore of a dump
// leaves them) still migrates: the orphans stay as they were, nothing else
// is lost, and the file can be repaired or restored afterwards.
TEST_F(JournalStoreTest, AVersion7JournalWithOrphanedRowsStillMigrates) {
  const std::string path = file("orphan.db");
  ASSERT_NO_FATAL_FAILURE(write_version7_journal(path));
  {
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE((*db)->exec("PRAGMA foreign_keys=OFF; DELETE FROM tasks WHERE id = 't-failed'"));
  }
  const std::string rows_before = row_counts(path);
  auto j = open_or_die(path);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  EXPECT_EQ(row_counts(path, {"protocol_handles", "strategy_state"}), rows_before);
}

// The checks are on for the writer and for any other connection: a value
// outside a list is refused by SQLite itself, not only by the writer.
TEST_F(JournalStoreTest, SqliteRefusesAValueOutsideAList) {
  const std::string path = file("k.db");
  auto j = open_or_die(path);
  ASSERT_TRUE(j->create_session(session("s1")));
  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db);
  Status bad = (*db)->exec(
      "INSERT INTO tasks (id, session_id, input, status, started_at) "
      "VALUES ('t9', 's1', 'x', 'paused', 1)");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("CHECK constraint failed"));
}

// The common backup, `sqlite3 journal.db .dump` restored with `sqlite3
// new.db < dump.sql`, restores every row of a journal with a task of each
// status (before schema 8 the interrupted and canceled tasks were refused,
// orphaning their steps), and kaisha opens the copy as it opened the original.
TEST_F(JournalStoreTest, ADumpOfAJournalWithEveryValueRestoresCompletely) {
  const std::string path = file("ジャーナル.db");
  {
    auto j = open_or_die(path);
    ASSERT_TRUE(j);
    write_every_value(*j);
  }
  const std::string dump = file("dump.sql"), restored = file("restored.db");
  ASSERT_EQ(shell("sqlite3 " + quoted(path) + " .dump > " + quoted(dump)), 0) << "is the sqlite3 CLI installed?";
  ASSERT_EQ(shell("sqlite3 -bail " + quoted(restored) + " < " + quoted(dump) + " 2>" + quoted(file("err"))), 0)
      << std::ifstream(file("err")).rdbuf();
  std::ifstream err(file("err"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(err), {}), "");
  EXPECT_EQ(row_counts(restored), row_counts(path));
  EXPECT_NE(row_counts(path).find("tasks=5\n"), std::string::npos) << row_counts(path);
  EXPECT_EQ(integrity(restored), "ok");
  auto copy = open_or_die(restored);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->schema_version(), JournalStore::current_schema_version());
  EXPECT_EQ((*copy->get_task("t-interrupted"))->status, "interrupted");
  EXPECT_EQ(copy->kept_outcomes("t-interrupted")->size(), 1u);  // it can still be resumed
}

// A live journal, written by another connection while it is copied, backs up
// with `sqlite3 journal.db ".backup copy.db"` and with VACUUM INTO: each copy
// passes the integrity check and holds a prefix of the writes (WAL readers see
// one committed state).
TEST_F(JournalStoreTest, ALiveJournalBacksUpWithSqlitesBackupAndVacuumInto) {
  const std::string path = file("live.db");
  auto j = open_or_die(path);
  ASSERT_TRUE(j);
  write_every_value(*j);
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    // Bounded: at most 20,000 steps, in transactions of 50.
    for (int batch = 0; batch < 400 && !stop.load(); ++batch) {
      Status s = j->write_batch([&]() -> Status {
        for (int i = 0; i < 50; ++i) {
          StepRow st;
          st.session_id = "s1";
          st.task_id = "t-running";
          st.kind = "note";
          st.payload = json{{"n", batch * 50 + i}, {"text", "書き込み中 ✍️"}};
          if (auto r = j->append_step(st); !r) return r.error();
        }
        return Status::Ok();
      });
      if (!s) return;
      written.fetch_add(50);
    }
  });
  while (written.load() < 500) std::this_thread::yield();
  const std::string backup = file("backup.db"), vacuumed = file("vacuumed.db");
  const int backup_rc = shell("sqlite3 " + quoted(path) + " \".backup " + quoted(backup) + "\"");
  const int vacuum_rc = shell("sqlite3 " + quoted(path) + " \"VACUUM INTO " + quoted(vacuumed) + "\"");
  stop.store(true);
  writer.join();
  ASSERT_EQ(backup_rc, 0);
  ASSERT_EQ(vacuum_rc, 0);
  for (const auto& copy : {backup, vacuumed}) {
    EXPECT_EQ(integrity(copy), "ok") << copy;
    auto c = open_or_die(copy);
    ASSERT_TRUE(c) << copy;
    auto steps = c->task_steps("t-running");
    ASSERT_TRUE(steps) << copy;
    // The kinds written first, then whole batches of notes: a committed prefix.
    const size_t notes = steps->size() - kStepKinds.size();
    EXPECT_GE(notes, 500u) << copy;
    EXPECT_EQ(notes % 50, 0u) << copy;
    for (size_t i = 0; i < notes; ++i)
      ASSERT_EQ((*steps)[kStepKinds.size() + i].payload.value("n", -1), static_cast<int>(i)) << copy;
  }
}

TEST_F(JournalStoreTest, AValueOutsideAnEnumerationIsAClearError) {
  auto j = open_or_die(file("k.db"));
  ASSERT_TRUE(j->create_session(session("s1")));
  StepRow bad;
  bad.session_id = "s1";
  bad.kind = "dance";
  auto r = j->append_step(bad);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("invalid step kind 'dance'"));
  EXPECT_THAT(r.error().message, HasSubstr("llm_request"));
  LedgerEntryRow e;
  e.session_id = "s1";
  e.ledger = "gold";
  e.kind = "hire";
  EXPECT_THAT(j->record_ledger_entry(e).error().message, HasSubstr("invalid ledger 'gold'"));
}

TEST_F(JournalStoreTest, MakeIdIsPrefixedAndDistinct) {
  std::string a = JournalStore::make_id("s"), b = JournalStore::make_id("s");
  EXPECT_EQ(a.rfind("s-", 0), 0u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace kaisha::store

namespace kaisha::store {
namespace {

// The writer's checkpoints run off its commits, and still keep the
// write-ahead log from growing with the journal.
using CheckpointTest = testing::TempDirTest;

// journal.durability reaches the writer's connection: synchronous=NORMAL (1)
// by default, FULL (2) when asked; a journal written at either level is the
// same file to a reader.
using JournalDurabilityTest = testing::TempDirTest;

TEST_F(JournalDurabilityTest, TheWritersSynchronousLevelIsTheDurabilityAsked) {
  auto normal = JournalStore::open(file("normal.db"));
  ASSERT_TRUE(normal.ok()) << normal.error().message;
  auto level = (*normal)->synchronous();
  ASSERT_TRUE(level.ok()) << level.error().message;
  EXPECT_EQ(*level, 1);

  JournalStore::Options o;
  o.durability = Durability::full;
  auto full = JournalStore::open(file("full.db"), o);
  ASSERT_TRUE(full.ok()) << full.error().message;
  level = (*full)->synchronous();
  ASSERT_TRUE(level.ok()) << level.error().message;
  EXPECT_EQ(*level, 2);
  SessionRow session;
  session.id = "s";
  ASSERT_TRUE((*full)->create_session(session).ok());
  ASSERT_TRUE((*full)->start_task("s", "t", "a task").ok());
  auto reader = JournalStore::open_read_only(file("full.db"));
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto tasks = (*reader)->tasks("s");
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(tasks->size(), 1u);
}

TEST_F(CheckpointTest, TheWriteAheadLogIsCheckpointedOffTheWriter) {
  const std::string path = file("kaisha.db");
  auto st = JournalStore::open(path);
  ASSERT_TRUE(st.ok()) << st.error().message;
  SessionRow session;
  session.id = "s";
  ASSERT_TRUE((*st)->create_session(session).ok());
  ASSERT_TRUE((*st)->start_task("s", "t", "a task").ok());
  // About 24 MB in 1,200 commits, six times the log's 1,000 pages (4 MiB).
  const std::string text(20000, 'x');
  for (int i = 0; i < 1200; ++i) {
    StepRow step;
    step.session_id = "s";
    step.task_id = "t";
    step.kind = "note";
    step.payload = json{{"text", text}, {"i", i}};
    ASSERT_TRUE((*st)->append_step(step).ok());
  }
  // The checkpointer runs when it gets a core: wait for it (a loaded machine
  // may take a while), writing a little to let the writer start the log over.
  std::error_code ec;
  auto copied_and_restarted = [&] {
    return std::filesystem::file_size(path, ec) > (10u << 20) &&
           std::filesystem::file_size(path + "-wal", ec) <= (4u << 20) + 65536;
  };
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int extra = 0;
  while (!copied_and_restarted() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    StepRow step;
    step.session_id = "s";
    step.task_id = "t";
    step.kind = "note";
    step.payload = json{{"text", text}, {"extra", ++extra}};
    ASSERT_TRUE((*st)->append_step(step).ok());
  }
  EXPECT_TRUE(copied_and_restarted()) << "database " << std::filesystem::file_size(path, ec) << " bytes, log "
                                      << std::filesystem::file_size(path + "-wal", ec) << " bytes";
  EXPECT_GT((*st)->background_checkpoints(), 0);
  auto steps = (*st)->task_steps("t");
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(steps->size(), 1200u + static_cast<size_t>(extra));
}

}  // namespace
}  // namespace kaisha::store

namespace kaisha::store {
namespace {

TEST_F(JournalStoreTest, TasksLeftRunningAreClosedAsInterruptedWithTheirTotals) {
  auto st = JournalStore::open(file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& j = **st;
  SessionRow s1, s2;
  s1.id = "s1";
  s2.id = "s2";
  ASSERT_TRUE(j.create_session(s1).ok());
  ASSERT_TRUE(j.create_session(s2).ok());
  ASSERT_TRUE(j.start_task("s1", "done", "finished", 1000).ok());
  TaskOutcome o;
  o.task_id = "done";
  ASSERT_TRUE(j.finish_task(o).ok());
  ASSERT_TRUE(j.start_task("s1", "orphan", "killed mid-way", 2000).ok());
  ASSERT_TRUE(j.start_task("s2", "other", "another session's", 2000).ok());
  StepRow step;
  step.session_id = "s1";
  step.task_id = "orphan";
  step.kind = "llm_response";
  step.tokens_in = 100;
  step.tokens_out = 20;
  step.at = 5000;
  ASSERT_TRUE(j.append_step(step).ok());
  LedgerEntryRow charge;
  charge.session_id = "s1";
  charge.task_id = "orphan";
  charge.ledger = "expense";
  charge.kind = "ask_settle";
  charge.amount = 0.25;
  ASSERT_TRUE(j.record_ledger_entry(charge).ok());
  charge.kind = "overshoot";  // part of the settlement above, not a charge of its own
  charge.amount = 0.05;
  ASSERT_TRUE(j.record_ledger_entry(charge).ok());

  auto closed = j.close_orphaned_tasks("s1", "killed");
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(*closed, std::vector<std::string>{"orphan"});
  auto t = j.get_task("orphan");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->status, "interrupted");
  EXPECT_EQ((*t)->error, "killed");
  EXPECT_EQ((*t)->finished_at, 5000);
  EXPECT_EQ((*t)->wall_ms, 3000);
  EXPECT_EQ((*t)->tokens_in, 100);
  EXPECT_EQ((*t)->tokens_out, 20);
  EXPECT_DOUBLE_EQ((*t)->expense, 0.25);
  EXPECT_EQ((*j.get_task("done"))->status, "done");
  EXPECT_EQ((*j.get_task("other"))->status, "running") << "another session's task is not touched";
  EXPECT_TRUE(j.close_orphaned_tasks("s1", "again")->empty());
}

// A task's start and its steps may be stamped by different threads: an orphan
// whose only step reads as a little before its start still ends no earlier
// than it started.
TEST_F(JournalStoreTest, AnOrphanWhoseStepsReadAsBeforeItsStartEndsNoEarlierThanItStarted) {
  auto st = JournalStore::open(file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& j = **st;
  SessionRow s1;
  s1.id = "s1";
  ASSERT_TRUE(j.create_session(s1).ok());
  ASSERT_TRUE(j.start_task("s1", "orphan", "killed mid-way", 2000).ok());
  StepRow step;
  step.session_id = "s1";
  step.task_id = "orphan";
  step.kind = "llm_response";
  step.at = 1998;
  ASSERT_TRUE(j.append_step(step).ok());
  ASSERT_TRUE(j.close_orphaned_tasks("s1", "killed").ok());
  auto t = j.get_task("orphan");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->finished_at, 2000);
  EXPECT_EQ((*t)->wall_ms, 0);
}

}  // namespace
}  // namespace kaisha::store

namespace kaisha::store {
namespace {

using TaskOutcomesTest = testing::TempDirTest;

// What a resume reads: a running task's outcomes in order, kept until it ends
// other than interrupted; its strategy; and the task put back to running.
TEST_F(TaskOutcomesTest, ARunningTasksOutcomesAreKeptInOrderUntilItEnds) {
  auto st = JournalStore::open(file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& j = **st;
  SessionRow s;
  s.id = "s1";
  ASSERT_TRUE(j.create_session(s).ok());
  ASSERT_TRUE(j.start_task("s1", "t1", "翻訳して", 1000, "effgen").ok());
  ASSERT_TRUE(j.keep_outcome("s1", "t1", 1, R"({"type":"budget","id":2,"view":{}})").ok());
  ASSERT_TRUE(j.keep_outcome("s1", "t1", 0, R"({"type":"budget","id":1,"view":{}})").ok());
  auto kept = j.kept_outcomes("t1");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_NE((*kept)[0].find("\"id\":1"), std::string::npos);
  EXPECT_NE((*kept)[1].find("\"id\":2"), std::string::npos);
  auto t = j.get_task("t1");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->strategy, "effgen");

  // Interrupted: kept, and put back to running for the resume.
  TaskOutcome o;
  o.task_id = "t1";
  o.status = "interrupted";
  ASSERT_TRUE(j.finish_task(o).ok());
  EXPECT_EQ(j.kept_outcomes("t1")->size(), 2u);
  ASSERT_TRUE(j.reopen_task("t1").ok());
  EXPECT_EQ((*j.get_task("t1"))->status, "running");
  auto again = j.reopen_task("t1");  // only an interrupted task is reopened
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("no interrupted task 't1'"), std::string::npos) << again.error().message;

  // Done: gone, and one arriving late (through the ledger) is not kept.
  o.status = "done";
  ASSERT_TRUE(j.finish_task(o).ok());
  EXPECT_TRUE(j.kept_outcomes("t1")->empty());
  ASSERT_TRUE(j.keep_outcome("s1", "t1", 2, R"({"type":"budget","id":3,"view":{}})").ok());
  EXPECT_TRUE(j.kept_outcomes("t1")->empty());

  // Forgetting the session takes a running task's outcomes too.
  ASSERT_TRUE(j.start_task("s1", "t2", "x").ok());
  ASSERT_TRUE(j.keep_outcome("s1", "t2", 0, R"({"type":"budget","id":1,"view":{}})").ok());
  ASSERT_TRUE(j.forget_session("s1").ok());
  EXPECT_TRUE(j.kept_outcomes("t2")->empty());
}

// A store made by the version before resume (schema 5): its tasks get an
// empty strategy and the outcome table; what it held is all still there.
TEST_F(TaskOutcomesTest, AVersion5StoreMigratesWithItsTasksIntact) {
  const std::string path = file("v5.db");
  {
    auto j = JournalStore::open(path);
    ASSERT_TRUE(j.ok());
    SessionRow s;
    s.id = "s1";
    ASSERT_TRUE((*j)->create_session(s).ok());
    ASSERT_TRUE((*j)->start_task("s1", "t1", "古いタスク", 1000).ok());
  }
  {
    auto db = SqliteDb::open(path, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->exec(
        "DROP TABLE task_outcomes; DROP TABLE ask_steps; DROP TABLE protocol_handles; DROP TABLE strategy_state; "
        "ALTER TABLE tasks DROP COLUMN strategy; UPDATE schema_version SET version = 5;"));
  }
  auto j = JournalStore::open(path);
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)->schema_version(), JournalStore::current_schema_version());
  auto t = (*j)->get_task("t1");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->input, "古いタスク");
  EXPECT_EQ((*t)->strategy, "");
  EXPECT_TRUE((*j)->keep_outcome("s1", "t1", 0, R"({"type":"budget","id":1,"view":{}})").ok());
  EXPECT_EQ((*j)->kept_outcomes("t1")->size(), 1u);
}

}  // namespace
}  // namespace kaisha::store

namespace kaisha::store {
namespace {

// An outcome whose predecessor was lost is not replayed, nor anything after it.
TEST_F(TaskOutcomesTest, OnlyTheRunOfOutcomesWithoutAGapIsReturned) {
  auto st = JournalStore::open(file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& j = **st;
  SessionRow s;
  s.id = "s1";
  ASSERT_TRUE(j.create_session(s).ok());
  ASSERT_TRUE(j.start_task("s1", "t1", "x").ok());
  for (int seq : {0, 1, 3, 4}) ASSERT_TRUE(j.keep_outcome("s1", "t1", seq, "o" + std::to_string(seq)).ok());
  auto kept = j.kept_outcomes("t1");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, (std::vector<std::string>{"o0", "o1"}));
}

}  // namespace
}  // namespace kaisha::store

namespace kaisha::store {
namespace {

using AskStepsTest = testing::TempDirTest;

// An employee's loop steps inside an ask, per ask and in order up to the
// first gap; kept while the task runs or is interrupted, gone when it ends.
TEST_F(AskStepsTest, EachAsksStepsAreKeptInOrderUntilTheTaskEnds) {
  auto st = JournalStore::open(file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto& j = **st;
  SessionRow s;
  s.id = "s1";
  ASSERT_TRUE(j.create_session(s).ok());
  ASSERT_TRUE(j.start_task("s1", "t1", "数えて 🔢").ok());
  ASSERT_TRUE(j.keep_ask_step("s1", "t1", 4, 1, "a1").ok());
  ASSERT_TRUE(j.keep_ask_step("s1", "t1", 4, 0, "a0").ok());
  for (int step : {0, 1, 3}) ASSERT_TRUE(j.keep_ask_step("s1", "t1", 7, step, "b" + std::to_string(step)).ok());
  auto kept = j.kept_ask_steps("t1");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->at(4), (std::vector<std::string>{"a0", "a1"}));
  EXPECT_EQ(kept->at(7), (std::vector<std::string>{"b0", "b1"})) << "nothing after a gap";

  TaskOutcome o;
  o.task_id = "t1";
  o.status = "interrupted";
  ASSERT_TRUE(j.finish_task(o).ok());
  EXPECT_EQ(j.kept_ask_steps("t1")->size(), 2u);
  o.status = "failed";
  ASSERT_TRUE(j.finish_task(o).ok());
  EXPECT_TRUE(j.kept_ask_steps("t1")->empty());
  ASSERT_TRUE(j.keep_ask_step("s1", "t1", 9, 0, "late").ok());
  EXPECT_TRUE(j.kept_ask_steps("t1")->empty()) << "a step arriving after its task ended is not kept";

  ASSERT_TRUE(j.start_task("s1", "t2", "x").ok());
  ASSERT_TRUE(j.keep_ask_step("s1", "t2", 1, 0, "c0").ok());
  ASSERT_TRUE(j.forget_session("s1").ok());
  EXPECT_TRUE(j.kept_ask_steps("t2")->empty());
}

// A store made by the version before (schema 6), with a task interrupted
// there: it gets the ask-step table and can still be resumed.
TEST_F(AskStepsTest, AVersion6StoreMigratesWithItsKeptOutcomesIntact) {
  const std::string path = file("v6.db");
  {
    auto j = JournalStore::open(path);
    ASSERT_TRUE(j.ok());
    SessionRow s;
    s.id = "s1";
    ASSERT_TRUE((*j)->create_session(s).ok());
    ASSERT_TRUE((*j)->start_task("s1", "t1", "中断されたタスク", 1000, "hashiru").ok());
    ASSERT_TRUE((*j)->keep_outcome("s1", "t1", 0, R"({"type":"budget","id":1,"view":{}})").ok());
  }
  {
    auto db = SqliteDb::open(path, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->exec("DROP TABLE ask_steps; DROP TABLE protocol_handles; DROP TABLE strategy_state; UPDATE "
                    "schema_version SET version = 6;"));
  }
  auto j = JournalStore::open(path);
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)->schema_version(), JournalStore::current_schema_version());
  EXPECT_EQ((*j)->kept_outcomes("t1")->size(), 1u);
  EXPECT_EQ((*(*j)->get_task("t1"))->strategy, "hashiru");
  EXPECT_TRUE((*j)->keep_ask_step("s1", "t1", 1, 0, "s").ok());
  EXPECT_EQ((*j)->kept_ask_steps("t1")->size(), 1u);
}

// Protocol handles: kept, replaced, found, listed while live, forgotten
// with their session.
TEST_F(JournalStoreTest, ProtocolHandlesAreKeptFoundAndForgotten) {
  auto j = open_or_die(file("h.db"));
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->create_session(session("s1")).ok());
  ASSERT_TRUE(j->create_session(session("s2")).ok());
  const int64_t now = JournalStore::now_ms();
  HandleRow run{"acp_run", "0b7c5a52-6f0e-4a38-9d47-3c1c2f5e8a10", "t1", "s1", now - 1000,
                0,         json{{"agent_name", "kaisha"}}};
  HandleRow task{"mcp_task", "abc", "t2", "s2", now - 1000, 60'000, json{{"status", "working"}}};
  HandleRow old{"mcp_task", "old", "t3", "s2", now - 120'000, 60'000, json::object()};
  ASSERT_TRUE(j->save_handle(run).ok());
  ASSERT_TRUE(j->save_handle(old).ok());
  ASSERT_TRUE(j->save_handle(task).ok());  // purges `old`, past its TTL
  task.data["status"] = "completed";
  ASSERT_TRUE(j->save_handle(task).ok());  // replaces
  auto got = j->get_handle("mcp_task", "abc");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->task_id, "t2");
  EXPECT_EQ((*got)->created_at, now - 1000);
  EXPECT_EQ((*got)->ttl_ms, 60'000);
  EXPECT_EQ((*got)->data["status"], "completed");
  EXPECT_FALSE(j->get_handle("mcp_task", "old")->has_value());
  EXPECT_FALSE(j->get_handle("acp_run", "abc")->has_value()) << "handles are per protocol";
  EXPECT_EQ(j->live_handles("mcp_task", now)->size(), 1u);
  EXPECT_TRUE(j->live_handles("mcp_task", now + 60'000)->empty());
  EXPECT_EQ(j->live_handles("acp_run", now + 1'000'000'000)->size(), 1u) << "no TTL: kept for good";
  EXPECT_FALSE(j->save_handle(HandleRow{"", "x", "t", "s1", 0, 0, json::object()}).ok());

  ASSERT_TRUE(j->forget_session("s2").ok());
  EXPECT_FALSE(j->get_handle("mcp_task", "abc")->has_value());
  EXPECT_TRUE(j->get_handle("acp_run", run.handle)->has_value());
}

// A store made by the version before protocol handles (schema 8) migrates
// with its rows intact and keeps handles from then on.
TEST_F(JournalStoreTest, AVersion8StoreMigratesAndKeepsItsRows) {
  const std::string path = file("v7.db");
  {
    auto j = open_or_die(path);
    ASSERT_TRUE(j);
    ASSERT_TRUE(j->create_session(session("s1")).ok());
    ASSERT_TRUE(j->start_task("s1", "t1", "移行前のタスク", 1000, "hashiru").ok());
    TaskOutcome o;
    o.task_id = "t1";
    o.final_answer = "答え";
    ASSERT_TRUE(j->finish_task(o).ok());
  }
  {
    auto db = SqliteDb::open(path, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->exec("DROP TABLE protocol_handles; DROP TABLE strategy_state; UPDATE schema_version SET version = 8;"));
  }
  {
    auto ro = JournalStore::open_read_only(path);
    ASSERT_FALSE(ro.ok());
    EXPECT_THAT(ro.error().message, HasSubstr("schema version 8"));
  }
  auto j = open_or_die(path);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), JournalStore::current_schema_version());
  auto t = j->get_task("t1");
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->input, "移行前のタスク");
  EXPECT_EQ((*t)->final_answer, "答え");
  EXPECT_EQ((*t)->status, "done");
  ASSERT_TRUE(j->save_handle(HandleRow{"acp_run", "r1", "t1", "s1", 0, 0, json::object()}).ok());
  EXPECT_EQ((*j->get_handle("acp_run", "r1"))->task_id, "t1");
}

}  // namespace
}  // namespace kaisha::store
