// The effgen strategy's algorithm for one task (effgen.md §23 A–E), as a
// pure driver (runtime/driver/driver_effects.hpp): no actor, no clock or
// file of its own.
//
// A task is routed with zero model calls. A simple one goes to one worker. A
// complex one is decomposed by the planner's model into a subtask DAG (an
// unusable plan is asked for once more, then the task falls back to one
// worker); a plan that cannot be afforded is refused before any worker is
// hired; workers hired for the task run the subtasks concurrently, dependents
// get their predecessors' outputs, and a synthesis call joins the results.
// When the judge audits, every worker result goes to it, with up to
// max_judge_retries retries. Workers are fired when the task ends (and
// before the synthesis call). Finish carries effgen.md §23 item 4's metadata
// except what only the kit knows: execution_time_ms and total_tokens.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/llm/model_tier.hpp"
#include "runtime/judge/audit_loop.hpp"
#include "runtime/dag/dag_scheduler.hpp"
#include "runtime/effgen/decomposition/decomposition_round.hpp"
#include "runtime/prompt/prompt_template.hpp"
#include "runtime/dag/subtask_dag.hpp"
#include "runtime/effgen/prompt_optimizer/prompt_optimizer.hpp"

namespace kaisha::routing {
class Router;
}

namespace kaisha::effgen {

// What every task of one planner shares, as the planner was given it.
struct EffgenSetup {
  std::shared_ptr<const routing::Router> router;
  std::shared_ptr<const prompt::PromptOptimizer> optimizer;  // null: prompts go as written
  economy::ModelCost planner_cost;  // decomposition and synthesis calls (its model_ref is called)
  economy::ModelCost worker_cost;   // the workers' model and prices
  // Prompt texts (prompts/effgen/): the workers' system prompt, a worker's
  // subtask message ({{task}} {{subtask}} {{expected_output}} {{context}}),
  // the synthesis request ({{task}} {{results}}) and the decomposition
  // prompts per strategy (an error fails each task that needs it).
  std::string worker_system;
  std::string worker_task;
  std::string synthesis;
  std::map<routing::Strategy, Result<planning::PromptTemplate>> decompose;
  double temperature = 0;  // of the planner's own calls
  int max_concurrent = 4;  // workers at most
  int max_subtask_retries = 1;
  bool audit = false;  // the judge audits worker results
  int max_judge_retries = 3;
  int64_t worker_max_output_tokens = 1024;  // for pricing a plan's worst case
  // The company's memory: memories recalled for the task (a Recall before it
  // is routed) go with it to the planner and a single worker; a task that
  // succeeded is stored as a memory (a RunTool of MemoryManager), in the
  // words of `memory_note` ({{task}} {{how}} {{answer}}).
  bool recall = false;
  bool remember = false;
  std::string memory_note;
  std::function<int64_t()> now_ms;  // a monotonic clock, for durations
  std::function<bool()> listening;  // whether chatty progress events are wanted
};

// What the setup becomes once, for every task: templates and the optimizer
// for the parts of a worker prompt.
class EffgenPlaybook {
 public:
  explicit EffgenPlaybook(EffgenSetup setup);

  const EffgenSetup& setup() const { return setup_; }
  llm::ModelTier worker_tier() const { return worker_tier_; }
  const planning::PromptTemplate& worker_task() const { return worker_task_; }
  const planning::PromptTemplate& synthesis() const { return synthesis_; }
  // τ1–τ3 for one part of a worker prompt (no bullets: every part sits under
  // a heading line in the template); null without an optimizer.
  const prompt::PromptOptimizer* part_optimizer() const { return part_optimizer_ ? &*part_optimizer_ : nullptr; }

 private:
  EffgenSetup setup_;
  llm::ModelTier worker_tier_ = llm::ModelTier::medium;
  planning::PromptTemplate worker_task_;
  planning::PromptTemplate synthesis_;
  std::optional<prompt::PromptOptimizer> part_optimizer_;
};

// One task. Feed it the outcomes of the effects it returned, in any order
// they arrive; after a Finish it returns nothing more.
class EffgenDriver {
 public:
  // `playbook` must outlive the driver.
  EffgenDriver(const EffgenPlaybook& playbook, std::string input);

  driver::Effects start();
  // The outcome of an effect it returned; one it does not wait for (a fire,
  // a late answer after the task finished) is ignored.
  driver::Effects on(const driver::Outcome& o);
  // The task is canceled: the workers are fired and it finishes with `why`.
  driver::Effects cancel(const std::string& why);

  bool finished() const { return finished_; }

 private:
  struct Worker {
    std::string name;
    bool busy = false;
    bool fired = false;
  };
  // One unit of work on a worker: a subtask of the plan, or the whole task.
  struct Job {
    std::string id;
    bool whole_task = false;
    std::string instruction;  // what the judge checks the result against
    std::string prompt;       // what the worker is asked (before feedback)
    std::string worker;
    int64_t started_ms = 0;
    std::unique_ptr<planning::AuditLoop> audit;
  };
  // What comes after the hires in flight.
  enum class AfterHires { run_single, run_plan };

  bool listening() const;
  driver::Report& report(driver::Effects& out, msg::EventKind kind, std::string text, json data = json::object(),
                         std::string agent = "") const;

  // What each answer leads to (the continuations of pending_).
  void on_plan(driver::Effects& out, const driver::ModelAnswered& a);
  void on_budget(driver::Effects& out, const driver::BudgetRead& a);
  void on_hired(driver::Effects& out, const std::string& name, const driver::HireAnswered& a);
  void on_answer(driver::Effects& out, const std::string& job_id, const driver::AskAnswered& a);
  void on_ruling(driver::Effects& out, const std::string& job_id, const driver::JudgeRuled& a);
  void on_synthesis(driver::Effects& out, const driver::ModelAnswered& a);

  void ask_for_plan(driver::Effects& out);
  void run_single(driver::Effects& out, const std::string& why);
  void run_plan(driver::Effects& out, planning::SubtaskDag dag);
  void hire_workers(driver::Effects& out, size_t n, AfterHires then);
  void after_hires(driver::Effects& out);
  void start_job(driver::Effects& out, std::string id, bool whole_task, std::string instruction, std::string prompt);
  void produce(driver::Effects& out, const std::string& job_id, const std::string& feedback);
  void on_audit_step(driver::Effects& out, const std::string& job_id, Result<planning::AuditStep> step);
  void finish_job(driver::Effects& out, const std::string& job_id, bool ok, std::string text);
  void pump(driver::Effects& out);
  void on_plan_progress(driver::Effects& out);
  void synthesize(driver::Effects& out, const std::vector<planning::SubtaskResult>& results);
  void fire_workers(driver::Effects& out);
  void finish(driver::Effects& out, bool ok, const std::string& text);
  void route(driver::Effects& out);
  void recalled(driver::Effects& out, const json& found);
  void remember(driver::Effects& out, const std::string& answer);
  // The task as the planner and a single worker get it: the recalled
  // memories first, when there are some.
  std::string with_memories(const std::string& text) const;

  llm::ChatRequest planner_request(std::vector<llm::ChatMessage> messages) const;
  std::string optimize_for_worker(const std::string& text);
  std::string worker_input();
  std::string fit_for_worker(std::string prompt) const;
  double plan_worst_case(const planning::SubtaskDag& dag, size_t workers) const;

  const EffgenPlaybook& book_;
  const EffgenSetup& setup_;
  std::string input_;
  bool finished_ = false;
  driver::PendingCalls<driver::Effects&> pending_;  // effects in flight; cleared at the finish

  json metadata_ = json::object();
  std::string memories_;      // the recalled memories' injection text ("" = none)
  std::string how_;           // how the task was done, for its memory
  bool remembering_ = false;  // its memory is being stored; then it finishes
  routing::Strategy strategy_ = routing::Strategy::hybrid;
  std::optional<planning::DecompositionRound> round_;
  std::vector<llm::ChatMessage> planning_conversation_;
  std::optional<planning::SubtaskDag> pending_dag_;  // while the budget is read and workers hired
  std::unique_ptr<planning::DagScheduler> scheduler_;
  std::vector<Worker> workers_;
  std::map<std::string, Job> jobs_;
  int64_t dag_started_ms_ = 0;
  int64_t subtask_ms_ = 0;  // sum of subtask durations, for the speedup figure
  double prompt_tokens_original_ = 0;
  double prompt_tokens_optimized_ = 0;
  std::optional<prompt::TextOptimization> worker_input_;  // see worker_input()
  int judge_calls_ = 0;
  bool fallback_ = false;

  AfterHires after_hires_ = AfterHires::run_single;
};

}  // namespace kaisha::effgen
