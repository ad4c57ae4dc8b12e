// CompanyRuntime starts one company in this process — journal, model client,
// ledger and CEO actors over one actor system — for one session, new or
// resumed from the store. It is the only door the CLI (and embedders) need;
// CAF stays behind it.
//
// A resumed session gets back its employees and its ledger state exactly as
// persisted: restoring does not charge hires again (hashiru.md §9 item 55).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runtime/company/chat_client.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::telemetry {
class MetricsRegistry;
}
namespace kaisha::economy {
class Budget;
}
namespace kaisha::memory {
class MemoryService;
}
namespace kaisha::store {
class JournalStore;
}

namespace kaisha::actors {

class EmployeePlacer;  // employee_placer.hpp

struct RuntimeOptions {
  config::Config config;
  // How models are reached; null = the real providers of `config` (libcurl).
  std::shared_ptr<company::ChatClient> chat;
  std::shared_ptr<company::ProgressSink> progress;
  std::string session_id;     // resume this session; "" = start a new one
  std::string strategy;       // hashiru | effgen | auto; "" = config.strategy
  int scheduler_threads = 0;  // 0 = number of cores
  // Where employees run (a cluster's placer); null = in this process.
  std::shared_ptr<EmployeePlacer> placer;
  // Tool sources added after the company's own (built-in, created, memory):
  // the MCP servers of config.mcp_servers, which the caller starts
  // (protocols/mcp/client/mcp_servers_start.hpp: the CLI does), embedders' and
  // tests' tools. The runtime stops them all before its actors.
  std::vector<std::shared_ptr<company::ToolSource>> tool_sources;
  // With session_id: the session's tasks its last process left unfinished
  // (killed, crashed, interrupted) are to be resumed (resume_interrupted()):
  // the agents they hired wait for them instead of rejoining the CEO.
  bool resume = false;
  // Where the company's metrics go (model calls, events, ledgers, the
  // journal; telemetry/*.hpp); null: none are kept. Must outlive the runtime.
  telemetry::MetricsRegistry* metrics = nullptr;
  // Added to a new session's journaled config (company_sessions.hpp tags
  // the sessions it opens with their host session and conversation).
  json session_tags = json::object();
  // Several sessions in one process (company_sessions.hpp) share these; null:
  // the runtime has its own. A shared budget is the one every session
  // charges: a resumed session does not restore its saved budget state over it.
  std::shared_ptr<economy::Budget> shared_budget;
  std::string shared_budget_session;  // the session whose saved state it is
  std::shared_ptr<memory::MemoryService> shared_memory;
  // False: `tool_sources` are shared with other runtimes, and their owner
  // stops them; the runtime stops only the sources it made itself.
  bool stops_tool_sources = true;
  // False: `metrics` gets no gauges of this runtime's ledgers and journal
  // (another runtime of the process reports them); its counters still count.
  bool level_metrics = true;
  // Applies the config's retention (journal.keep_days, keep_sessions) once
  // the session is open, printing what it forgot on stderr
  // (session_retention.hpp). False for the further sessions of a process
  // that applied it when it started (company_sessions.hpp).
  bool apply_retention = true;
  // Wraps each of the company's own built-in and created tool sources, and
  // those the strategies run their agents' work with (the pyramid's, HALO's,
  // HiVA's), not memory, not `tool_sources`: `kaisha editor` asks its editor
  // before a file write or a code run, and sends file tools to the editor.
  // Null: as they are.
  std::function<std::shared_ptr<company::ToolSource>(std::shared_ptr<company::ToolSource>)> wrap_tool_source;
};

class CompanyRuntime {
 public:
  // Validates everything a task needs before any work: the cost table, the
  // CEO prompt and tool specs, the CEO's model ref, the store. Errors say
  // what was wrong and where.
  static Result<std::unique_ptr<CompanyRuntime>> start(RuntimeOptions options);
  ~CompanyRuntime();

  const std::string& session_id() const;
  // The strategy its tasks run with (a catalog name).
  const std::string& strategy() const;

  // Runs one user turn to its end (blocking; for the CLI and tests). The task's
  // row is queued in the journal before the CEO or planner starts on it, and
  // every row the task wrote (steps, ledger entries, hires and fires) is
  // committed before this returns (the settlements of calls a cancel
  // abandoned come later: see cancel()).
  msg::TaskResult run_task(const std::string& input);
  // The same under a task id chosen by the caller (unique in the store).
  msg::TaskResult run_task(const std::string& input, const std::string& task_id);

  // For a host that queues tasks (kaisha serve): writes task `task_id`'s row
  // and waits for its commit, so that an accepted task is in the journal
  // before its id is given out. If the process dies before the task ends,
  // even before it started, the next process resumes it from where it was.
  // Blocking. An error when the journal could not take it: then the task
  // does not exist.
  Status accept_task(const std::string& input, const std::string& task_id);
  // Runs a task accept_task wrote (its row is not written again); otherwise
  // as run_task.
  msg::TaskResult run_accepted_task(const std::string& input, const std::string& task_id);
  // Ends a task accept_task wrote that will never run (canceled while it
  // waited its turn): journaled as canceled, committed before this returns.
  Status end_accepted_task(const std::string& task_id, const std::string& why);

  // With RuntimeOptions::resume: the session's interrupted tasks that began
  // with this runtime's strategy, oldest first (others wait for a runtime
  // with theirs).
  const std::vector<std::string>& interrupted_tasks() const;
  // Runs each of them (only task `only`, when given) to its end under its
  // own id, and returns their results. What a task had done is replayed from the journal,
  // not paid again: its model calls' and agents' answers, tool results,
  // verdicts, hires and fires. What was in flight when its process died runs
  // again, once, and is journaled as a re-run (a note {"rerun": ...}).
  // An error when a task's journal cannot be read.
  Result<std::vector<msg::TaskResult>> resume_interrupted(const std::string& only = "");
  // Stops the running task `task_id` if it is still running: run_task()
  // returns at once with a result marked canceled (error = `why`) and the
  // journal records the task as canceled. In-flight model calls are
  // abandoned; what they cost is still settled. False when that task is not
  // running. `failed`: it ends as failed, not canceled (journaled so too).
  // Thread-safe.
  bool cancel(const std::string& task_id, const std::string& why, bool failed = false);

  // Calls one CEO tool directly (e.g. "AskAgent" with {"agent_name": ...,
  // "prompt": ...}), outside any model turn, and returns its result envelope
  // {status, message, output, ...}. Blocking.
  json call_tool(const std::string& name, const json& arguments);
  // The same without blocking: `done` gets the envelope later, on an actor
  // thread (it must not block). One thread can keep many calls in flight,
  // with no scoped_actor and no waiting thread per call.
  void call_tool_async(const std::string& name, const json& arguments, std::function<void(json)> done);

  // Toggles a §9 item 54 switch for the rest of the session.
  Status set_switch(const std::string& name, bool on);
  // The GetBudget view.
  json budget();
  // A user-authorised increase of "expense" (USD) or "resource" (points).
  Status raise_budget(const std::string& which, double amount);

  // What another runtime of this process may share (RuntimeOptions).
  std::shared_ptr<economy::Budget> budget_handle() const;
  std::shared_ptr<memory::MemoryService> memory_handle() const;

  // Runs `write` on the journal's writer, after every write queued before
  // it, in a transaction of its own, and returns its outcome once committed
  // (or an error when the journal did not answer within 30 s). Blocks the
  // calling thread: never call it from an actor. Ok with no journal.
  Status write_journal(std::function<Status(store::JournalStore&)> write);

  // For a signal handler thread: commits everything queued in the journal and
  // records the running task (if any) as interrupted with `why`. The process is
  // expected to exit right after; in-flight model calls are abandoned.
  void interrupt(const std::string& why);

 private:
  struct Impl;
  explicit CompanyRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::actors
