// HALO's algorithm for one task (halo.md §3 Algorithm 1 with the reference
// code's semantics, §4-§7, §12), as a pure driver
// (runtime/driver/driver_effects.hpp): no actor, no clock, no file.
//
//  1. Stage 1: P1 parses the query into F; P2 -> P3 -> P4 refine it into Q*
//     (use_prompt_refinement=false: P1 only, Q* = the raw query).
//  2. Subtask k = 1..K: the planner names the next subtask from (Q*, F, the
//     history H) or says stop (use_planner=false: one subtask, Q* itself,
//     no planner call); the role designer names its roles (at most
//     max_roles); three builder calls per role make its system prompt rho
//     (the roles' chains run concurrently); each role agent is hired; the
//     subtask's MctsSearch runs, every node evaluation being an Ask to the
//     role's agent (rho as the system message, then the path context, then
//     the solve request), a judge call and a scorer call that sees the
//     label; the search's requests go out at once (rollouts concurrently).
//     The answer and success flag join H; the task stops early when the
//     non-empty subtask answers agree (answers::check_consistency).
//  3. Aggregation: the majority answer on an early stop; the last subtask
//     answer on a planner stop; the single subtask's answer without a
//     planner; the failure answer when K subtasks ran, or when the planner
//     stopped before any.
//
// Choices the paper leaves open, made here:
//  - Hiring: one agent per distinct (role name, rho) in the task, named
//    "halo-<role slug>-<n>" (n counts the task's hires), its spec's system
//    prompt rho; a role of a later subtask with the same name and the same
//    rho asks the same agent, with another rho it is another agent. Every
//    hired agent stays until the task ends and is fired on every exit
//    (finish, cap, cancel, a refused hire, an error). The asks are turns
//    (Ask::messages), which carry rho themselves: an agent's model call
//    takes the asker's messages in place of its own system prompt.
//  - A failed call of stage 1, the planner, the role designer, a builder,
//    the judge or the scorer is read as an empty reply: its parser's
//    documented default is used and the problem journaled. A failed Ask
//    (the agent or the ledger said no) is evaluated at once as an empty
//    answer labelled fail with score 0: nothing to judge, and the path that
//    led to it is penalised; no judge or scorer call is made for it.
//  - Finish is ok with an answer (early stop, planner stop after a subtask,
//    the single subtask, a cap with an answer so far) and not ok with the
//    failure answer (K subtasks without agreement, a planner stop before
//    any subtask, a cap before any answer), with a refused hire, a cancel
//    or a bad prompt or setting. metadata["answer"] is the text either way,
//    for a harness that scores the failure answer (HALO's benchmark
//    defaults).
//  - The code tool (halo.code_tool, item 21): each ask of a role agent
//    offers it; the tool calls of an answer run in order (RunTool, a name
//    other than the tool's answered with an error), their results go back
//    to the agent with its turn so far in one more ask, at most
//    max_tool_rounds times; the answer's text after that is the node's
//    answer. Each call and result is journaled under the node's job.
//  - Caps: before each CallModel or Ask, the task's max_model_calls (calls
//    and asks counted when issued) and max_usd (the expense of the answers
//    so far) are checked; at a cap the search is stopped and the task
//    finishes with the best answer so far (the stopped search's trajectory
//    answer, else the last subtask's, else the failure answer), the reason
//    journaled as a cap_reached event. With concurrent rollouts in flight,
//    which of them were issued before a cap depends on arrival order.
//
// Determinism (item 25): every request's text depends only on the replies
// it follows, the search's requests and events do not depend on arrival
// order, and the hires go out in role order once every role's prompt is
// built; so runs fed the same replies in different orders issue the same
// requests and the same strategy events (parse problems excepted: they are
// reported when their reply arrives).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/halo/halo_setup.hpp"
#include "runtime/halo/replies/task_parse.hpp"
#include "runtime/halo/search/mcts_search.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::halo {

class HaloDriver {
 public:
  HaloDriver(HaloSetup setup, msg::TaskRequest task);

  driver::Effects start();
  // The outcome of an effect it returned; one it does not wait for (a late
  // answer after the task finished) is ignored.
  driver::Effects on(const driver::Outcome& o);
  // The search stops, the hired agents are fired and the task finishes
  // with `why`; nothing more comes after.
  driver::Effects cancel(const std::string& why);

  bool finished() const { return finished_; }

  // "halo-<slug>-<n>": the slug is the role's ASCII letters and digits in
  // lower case, other runs as '-', at most 32 bytes ("role" when none).
  static std::string agent_name(const std::string& role, int n);

 private:
  struct Reply {
    bool ok = false;
    std::string text;
    std::string error;
  };
  using Then = std::function<void(driver::Effects&, const Reply&)>;

  struct Role {
    std::string name;
    std::string prompt;  // the builders' latest output; rho after the third
    int built = 0;       // builder calls answered
    std::string agent;   // the hired agent asked for it
  };
  struct HistoryEntry {
    std::string subtask;
    std::string answer;  // the search's
    bool success = false;
    std::string extracted;  // what is compared and returned: the answer, or what its parser read
  };
  // One node evaluation in flight: the request, then the agent's answer and
  // the judge's label as they arrive.
  struct InFlight {
    EvaluationRequest request;
    std::string answer;
    NodeLabel label = NodeLabel::continue_;
    // With the code tool: the agent's turn so far, its rounds of tool calls,
    // and the running round's calls with their results as they come.
    std::vector<llm::ChatMessage> messages;
    int tool_rounds = 0;
    std::vector<llm::ToolCall> calls;
    std::vector<std::optional<std::string>> results;
  };

  using Values = std::map<std::string, std::string>;

  bool listening() const;
  Values context(const std::string& subtask = "") const;  // query, F (and subtask)

  // Issuing calls, the caps checked first.
  bool may_call(driver::Effects& out);
  void call_model(driver::Effects& out, const std::string& purpose, HaloPrompt prompt, const Values& values, Then then);
  void on_model(driver::Effects& out, const std::string& purpose, const driver::ModelAnswered& a, const Then& then);
  void problem(driver::Effects& out, const std::string& call, const std::optional<std::string>& problem,
               const Reply& reply);

  // Before the first call: can the budget pay for a search at all?
  void on_budget(driver::Effects& out, const driver::BudgetRead& b);
  double first_search_worst_case() const;

  // Stage 1.
  void begin(driver::Effects& out);
  void on_task_parse(driver::Effects& out, const Reply& r);
  void refine(driver::Effects& out, int step, const std::string& previous);
  void refined(driver::Effects& out, bool refined);

  // The subtask loop.
  void next_subtask(driver::Effects& out);
  std::string history_text() const;
  void run_subtask(driver::Effects& out, std::string subtask);
  void on_roles(driver::Effects& out, const Reply& r);
  void build_prompt(driver::Effects& out, size_t role);
  void on_built(driver::Effects& out, size_t role, const Reply& r);
  void hire_roles(driver::Effects& out);
  void on_hired(driver::Effects& out, const std::string& agent, const driver::HireAnswered& a);

  // The search.
  void start_search(driver::Effects& out);
  void evaluate(driver::Effects& out, const EvaluationRequest& request);
  std::string job(const EvaluationKey& key) const;
  void ask(driver::Effects& out, const EvaluationKey& key, std::vector<llm::ChatMessage> messages);
  void on_answer(driver::Effects& out, const EvaluationKey& key, const driver::AskAnswered& a);
  void run_tools(driver::Effects& out, const EvaluationKey& key, const msg::AskReply& reply);
  void tool_done(driver::Effects& out, const EvaluationKey& key, size_t call, std::string result);
  void record_tool_result(driver::Effects& out, const EvaluationKey& key, InFlight& f, size_t call, std::string result);
  void next_tool_round(driver::Effects& out, const EvaluationKey& key);
  void judge(driver::Effects& out, const EvaluationKey& key);
  void score(driver::Effects& out, const EvaluationKey& key);
  void evaluated(driver::Effects& out, const EvaluationKey& key, Evaluation evaluation);
  void report_search_events(driver::Effects& out);
  void on_search_done(driver::Effects& out);
  void subtask_answered(driver::Effects& out, std::string extracted);

  // Endings.
  void end_at_cap(driver::Effects& out, const std::string& cap, double limit);
  void finish(driver::Effects& out, bool ok, const std::string& text, const std::string& exit);

  HaloSetup setup_;
  const HaloPrompts* prompts_ = nullptr;
  msg::TaskRequest task_;
  bool finished_ = false;
  driver::PendingCalls<driver::Effects&> pending_;  // effects in flight; cleared at the finish

  TaskParse parse_;             // F
  std::string query_;           // Q*
  int model_calls_ = 0;         // CallModel and Ask effects issued
  double worst_case_usd_ = -1;  // the first search's, once the budget was read
  double usd_ = 0;              // the expense of their answers
  int problems_ = 0;            // replies read with a problem

  int k_ = 0;                         // the running subtask, from 1
  std::string subtask_;               // its text
  std::vector<Role> roles_;           // its roles
  std::optional<MctsSearch> search_;  // its search
  std::map<EvaluationKey, InFlight> in_flight_;
  std::vector<HistoryEntry> history_;  // H
  int waiting_hires_ = 0;

  struct Agent {
    std::string name;
    std::string role;
    std::string rho;
    bool hired = false;  // the hire went through (only those are fired)
  };
  std::vector<Agent> agents_;
};

}  // namespace kaisha::halo
