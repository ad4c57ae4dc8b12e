// The structure of one finished (or interrupted) task, rebuilt from its
// journal alone: who asked whom, with the tokens, dollars and time of each
// node. `kaisha history TASK --tree` prints it; each strategy has its own
// builder in the catalog (StrategyInfo::tree), since each journals its work
// in its own shape.
//
// This library cannot see the store, so a task and its steps arrive as plain
// copies of the journal's rows (TaskRecord, TaskStep); the command line
// converts store::TaskRow and store::StepRow into them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kaisha::strategy {

// One journal step, as store::StepRow holds it.
struct TaskStep {
  int64_t seq = 0;
  std::string agent;                                  // "CEO", "Planner", an employee's name, ...
  std::string kind;                                   // a journaled msg::EventKind wire name: ask, answer, note, ...
  nlohmann::json payload = nlohmann::json::object();  // any JSON; builders never trust its shape
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
  int64_t at = 0;  // ms since the epoch; 0 = not known
};

// The task's own row, as store::TaskRow holds it.
struct TaskRecord {
  std::string id;
  std::string input;
  std::string status;    // running | done | failed | canceled | interrupted
  std::string strategy;  // what ran it; "" in journals older than the column
  std::string final_answer;
  std::string error;
  int64_t wall_ms = 0;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
};

// A node of a task's tree. The numbers are the node's and everything under
// it: an ask's tokens include its employee's tool loop, a pyramid call's the
// calls it made. The root's are the task row's totals.
struct TaskTree {
  std::string label;   // one line of UTF-8, already shortened
  std::string agent;   // who did the work ("" for a structural node, e.g. a plan)
  std::string kind;    // task | turn | ask | call | subtask | tool | hire | fire | verdict | step | ...
  std::string status;  // "" when it went as it should; failed | refused | unanswered
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
  int64_t ms = -1;  // wall time from its start to its end; -1 when the journal does not tell
  // Where the strategy's work is a graph (effgen's subtasks, HiVA's agents)
  // or a tree worth drawing (HALO's search, the pyramid's calls): the node's
  // own id in it ("" when none) and the keys of the nodes its edges come
  // from (the subtasks it waited for, the agents that send to it, its parent
  // search node or caller). The keyed nodes under one unkeyed node form one
  // drawing. `routed`: those of `after` whose edge carried a message in this
  // run (HiVA's routing); empty when the strategy does not say.
  std::string key;
  std::vector<std::string> after;
  std::vector<std::string> routed;
  std::vector<TaskTree> children;
};

// The tree as indented text, one node a line, children drawn with box-drawing
// characters ("├─ ", "└─ "), each line ending in a newline. A line shows the
// label, the status if any, then the numbers that are known: tokens,
// dollars, time.
std::string render_tree_text(const TaskTree& tree);

// The tree as JSON: every node an object with label, agent, kind, status,
// tokens_in, tokens_out, usd, ms (null when not known) and children; and
// key, after and routed where the node has them.
nlohmann::json tree_to_json(const TaskTree& tree);

// How a line shows time and money ("850 ms", "2.4 s"; "$0.0123").
std::string duration_text(int64_t ms);
std::string usd_text(double usd);

}  // namespace kaisha::strategy
