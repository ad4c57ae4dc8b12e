// DagScheduler is the pure state machine that runs a SubtaskDag
// (effgen.md §1.2 Algorithm 1, §5 Algorithm 10, §23 items 22 and 24). The
// supervisor actor owns one, starts what start_ready() hands out, reports
// each completion or failure, and when finished() asks for the outcome.
//
// Promises:
//  - a subtask starts only after every dependency has finished (completed,
//    failed or skipped), and never more than `max_concurrent` run at once;
//  - each started subtask gets its direct dependencies' results as context
//    (Algorithm 1 line 12); a failed dependency appears as an error note;
//  - a failure never cancels a sibling (Algorithm 3, item 24);
//  - a failed subtask is offered again up to `max_retries` times (Table 29)
//    before it counts as failed;
//  - dependents of a failed subtask still run, with the error note, by
//    default: effGen's parallel executor keeps an Error placeholder as the
//    result and passes results on as context, and its chains only stop on
//    an explicit fail_fast. DependencyFailurePolicy::skip is that fail_fast:
//    dependents (transitively) are marked skipped and never started.
//  - the outcome: a sequential plan whose last step completed answers with
//    that step's output and needs no synthesis (Algorithm 1 line 8, §23
//    item 2); every other plan, and a chain whose end failed, goes to
//    synthesis with every result and error note (the partial-result rule of
//    effgen.md §15); if nothing completed, the caller should fall back to a
//    single agent (Algorithm 18).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/dag/subtask_dag.hpp"

namespace kaisha::planning {

enum class DependencyFailurePolicy { run_with_error_note, skip };

struct SchedulerOptions {
  size_t max_concurrent = 5;  // effgen.md Table 29; 0 is treated as 1
  int max_retries = 2;        // extra attempts per subtask (Table 29: retry_on_failure, max_retries 2)
  DependencyFailurePolicy on_failed_dependency = DependencyFailurePolicy::run_with_error_note;
  // Hierarchical plans: the manager synthesizes even when the workers form a chain.
  bool always_synthesize = false;
};

enum class SubtaskState { pending, running, completed, failed, skipped };

const char* to_string(SubtaskState s);

// A finished (or failed) dependency as the dependent sees it.
struct PredecessorResult {
  std::string id;
  std::string description;
  bool ok = false;
  std::string text;  // the output, or the error when !ok
};

// One subtask to start now.
struct Assignment {
  size_t index = 0;  // position in the plan
  std::string id;
  std::string description;
  std::string expected_output;
  std::string required_specialization;
  int attempt = 1;                         // 1 on the first run, 2 on the first retry ...
  std::vector<PredecessorResult> context;  // direct dependencies, in depends_on order
};

struct SubtaskResult {
  std::string id;
  std::string description;
  SubtaskState state = SubtaskState::pending;
  std::string output;  // completed
  std::string error;   // failed, or why it was skipped
  int attempts = 0;
};

struct PlanOutcome {
  enum class Kind { answer, synthesize, all_failed };
  Kind kind = Kind::synthesize;
  std::string answer;                  // answer: the chain's last output
  std::vector<SubtaskResult> results;  // every subtask, in plan order
};

class DagScheduler {
 public:
  explicit DagScheduler(SubtaskDag dag, SchedulerOptions options = {});

  // Marks the subtasks that may start now as running and returns them:
  // high priority first, then plan order. Call it first and after every
  // report; it returns nothing while the concurrency cap is reached.
  std::vector<Assignment> start_ready();

  // Reports for a running subtask. Errors (code "scheduler") for an unknown
  // id or one that is not running; the state is then unchanged.
  Status complete(std::string_view id, std::string output);
  // true: it will be offered again by start_ready (a retry); false: failed for good.
  Result<bool> fail(std::string_view id, std::string error);

  // Every subtask is completed, failed or skipped.
  bool finished() const;
  size_t running() const { return running_; }
  SubtaskState state(size_t index) const { return slots_[index].state; }
  const SubtaskDag& dag() const { return dag_; }

  // Error (code "scheduler") until finished().
  Result<PlanOutcome> outcome() const;

 private:
  struct Slot {
    SubtaskState state = SubtaskState::pending;
    int attempts = 0;
    std::string output;
    std::string error;
  };

  Result<size_t> running_index(std::string_view id) const;
  bool is_done(size_t i) const;

  SubtaskDag dag_;
  SchedulerOptions options_;
  std::vector<Slot> slots_;
  size_t running_ = 0;  // invariant: == count of slots in state running, <= max_concurrent
};

// The context text a dependent subtask's agent receives, one block per
// dependency; failed ones read "[st_2 FAILED] <error>".
std::string render_context(const std::vector<PredecessorResult>& context);

// The synthesis input: every subtask's result or error note, in plan order.
std::string render_results(const std::vector<SubtaskResult>& results);

}  // namespace kaisha::planning
