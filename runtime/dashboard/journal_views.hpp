// What the dashboard of `kaisha serve` shows from the journal, as JSON: the
// agents of a served session (its own and those it opened for its clients),
// its tasks, a task's tree, a task's transcript and the ledgers over time.
// Plain reads of a JournalStore (a read-only connection of the server, never
// its writer); every function answers from what is committed when it runs.
//
// A task's tree comes from the strategies' own builders
// (strategy::build_task_tree), the same that `kaisha history TASK --tree`
// prints, converted with strategy::tree_to_json.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/dashboard/step_sums.hpp"
#include "runtime/store/journal_rows.hpp"
#include "runtime/strategy/task_tree.hpp"

namespace kaisha::store {
class JournalStore;
}

namespace kaisha::dashboard {

// The journal's rows as the tree builders take them.
strategy::TaskRecord task_record(const store::TaskRow& task);
strategy::TaskStep task_step(store::StepRow step);

// The task's tree from its journal steps, by the strategy that ran it.
Result<strategy::TaskTree> task_tree(store::JournalStore& store, const store::TaskRow& task);

// `host_session` first, then the sessions it opened for its clients.
Result<std::vector<std::string>> served_sessions(store::JournalStore& store, const std::string& host_session);

// {"session", "agents": [{name, role, state, model, type, description,
// session, node, tokens_in, tokens_out, usd, steps}]}: the CEO of each served
// session (of a client's session once it journaled a step or a hire), every
// agent hired in them (fired and lost ones included, with
// their state), and every other agent that journaled a step (planner, judge,
// workers). An agent's numbers are the sums over its journaled steps, which
// `step_sums` (a connection to the same journal) adds up without reading
// their payloads.
Result<json> agents_json(store::JournalStore& store, StepSums& step_sums, const std::string& host_session);

struct TaskQuery {
  std::string text;    // "": every task; else tasks whose id, input or answer contain it (ASCII case-insensitive)
  std::string status;  // "": any
  int limit = 50;      // at most this many, newest first
  int offset = 0;
};
// {"total", "offset", "tasks": [{id, session, input, status, strategy,
// final_answer, error, started_at, finished_at, wall_ms, tokens_in,
// tokens_out, usd}]}: the served sessions' tasks, newest first, `total`
// counting every match.
Result<json> tasks_json(store::JournalStore& store, const std::string& host_session, const TaskQuery& query);

// {"task", "session", "strategy", "status", "tree"}; an Error with code
// "not_found" when the journal has no such task.
Result<json> task_tree_json(store::JournalStore& store, const std::string& task_id);

// {"task", "session", "status", "input", "final_answer", "text_included",
// "total", "offset", "steps": [{seq, agent, kind, tokens_in, tokens_out, usd,
// at_ms, payload?}]}: the task's journaled steps in order, `offset` and
// `limit` paging them. A step's payload (prompts, model answers, tool
// arguments and results) is there only when `include_text`, as in spans;
// without it the step's place, who, what kind and its cost are. The task's
// input and answer are there as the protocols return them to the same
// client. Error "not_found" when the journal has no such task.
Result<json> transcript_json(store::JournalStore& store, const std::string& task_id, bool include_text, int offset,
                             int limit);

// {"session", "points": [{at_ms, ledger, kind, amount, used, total, agent,
// task, session}]}: every ledger entry of the served sessions in the order
// they were written; `used` and `total` are the ledger's after the entry.
Result<json> ledger_json(store::JournalStore& store, const std::string& host_session);

}  // namespace kaisha::dashboard
