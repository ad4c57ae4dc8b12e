// MctsSearch is the pure state machine of one subtask's workflow search
// (halo.md §6, §12 items 10–17 and 25). Its driver turns each request into
// a node evaluation (solve, judge, score), hands the result back, and
// forwards whatever new requests that makes ready; the search does no I/O,
// holds no clock and starts no thread.
//
// The loop is the reference's `search(actions, attempts)` (§6.2), fixed:
//  1. select: from the root, take the child with the highest UCT (Eq. 9)
//     while the node is fully expanded (full width: has children);
//  2. if the selected leaf (depth >= 1) is terminal, end with its answer:
//     success or fail at depth 1..D, or continue at depth D;
//  3. if the leaf has untried roles, expand it: full width requests one
//     evaluation per role at once, one-per-expansion the lowest untried
//     role; the children join the tree in role order once all arrived;
//  4. take c, the leaf's child with the highest UCT, and run `attempts`
//     rollouts from it concurrently: a rollout from a terminal c ends at
//     once (success, fail, or depth exhausted at D); otherwise each step
//     d = c.depth+1 .. D evaluates a transient agent (never put in the tree)
//     of a role drawn uniformly from the stream
//       RandomStream(TaskSeed("halo.search", seed),
//                    StreamKey("halo.rollout", subtask, iteration, rollout, step))
//     whose context is c's path plus the rollout's earlier steps, until a
//     step is judged success or fail or depth D is passed (depth exhausted);
//  5. once every rollout of the selection has ended, backpropagate them
//     along root..c with Eq. 11, in rollout order, and start the next
//     iteration.
//
// Promises:
//  - determinism (item 25): the tree, the events and the result depend on
//    the settings, role count, seed, subtask and the evaluation of each key,
//    never on the order evaluations arrive in. Rollout r's next step is
//    requested as soon as its step arrives; nothing is applied to the tree
//    before the whole expansion or all rollouts of the selection arrived;
//  - the tree persists across iterations (item 17);
//  - caps (item 16): at most max_iterations selections; and a phase
//    (expansion, or the rollouts of a selection) starts only if its worst
//    case fits in what is left of max_evaluations (rollouts reserve
//    attempts × (D − c.depth)), so requests never exceed the cap and the
//    decision does not depend on arrival order;
//  - the best trajectory, when the search ends without selecting a terminal
//    node (a cap or stop()), is the greedy path from the root that takes
//    the child of highest value v at each level (ties to the first child)
//    down to a node without children. With no node below the root there is
//    no trajectory and the answer is empty.
//
// Bad input throws std::invalid_argument saying what was wrong and leaves
// the search unchanged: settings (see validate), role_count < 1, a key that
// was never requested or was already answered, a NaN score. Results for keys
// still outstanding when the search ended (stop() with calls in flight) are
// accepted and ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/halo/search/node_evaluation.hpp"
#include "runtime/halo/search/search_event.hpp"
#include "runtime/halo/search/search_result.hpp"
#include "runtime/halo/search/search_settings.hpp"
#include "runtime/halo/search/search_tree.hpp"
#include "runtime/random/task_seed.hpp"

namespace kaisha::halo {

class MctsSearch {
 public:
  // `seed` is the strategy's seed setting (the paper's is 10), not the task
  // id: two searches with the same inputs and seed draw the same roles.
  // `subtask` numbers the search within its task, so that the subtasks of
  // one task draw from different streams.
  MctsSearch(SearchSettings settings, int role_count, uint64_t seed, int subtask);

  // The first requests (possibly none, when the search ends at once or was
  // stopped before it started). Throws std::logic_error when called twice.
  std::vector<EvaluationRequest> start();

  // Records the evaluation of `key` and returns the requests it made ready
  // (possibly none: others are still awaited, or the search ended). Throws
  // std::logic_error before start().
  std::vector<EvaluationRequest> on_evaluated(const EvaluationKey& key, Evaluation evaluation);

  // The driver's money cap: end now, reason `stopped`, with the best
  // trajectory so far. Does nothing once the search is done.
  void stop();

  bool done() const { return phase_ == Phase::done; }

  // Throws std::logic_error until done().
  SearchResult result() const;

  const SearchTree& tree() const { return tree_; }

  // The events since the last call, oldest first.
  std::vector<SearchEvent> take_events();

  int iteration() const { return iteration_; }
  int evaluations_requested() const { return evaluations_; }
  // Requests not yet answered (in flight at the driver).
  int outstanding() const { return static_cast<int>(outstanding_.size()); }

 private:
  enum class Phase { not_started, between_iterations, expanding, rolling_out, done };

  struct PendingChild {
    int role = 0;
    std::optional<Evaluation> evaluation;
  };

  struct Rollout {
    bool finished = false;
    RolloutEnd end = RolloutEnd::fail;
    std::vector<int> roles;          // one per step requested so far
    std::vector<PathEntry> context;  // c's path, then the answered steps
  };

  void run_iterations(std::vector<EvaluationRequest>& out);
  void start_iteration(std::vector<EvaluationRequest>& out);
  void request_expansion(int leaf, std::vector<EvaluationRequest>& out);
  void on_expansion_evaluated(const EvaluationKey& key, Evaluation evaluation, std::vector<EvaluationRequest>& out);
  void start_rollouts(std::vector<EvaluationRequest>& out);
  void request_rollout_step(int rollout, std::vector<EvaluationRequest>& out);
  void on_rollout_evaluated(const EvaluationKey& key, Evaluation evaluation, std::vector<EvaluationRequest>& out);
  void finish_rollouts();
  void issue(EvaluationRequest request, std::vector<EvaluationRequest>& out);
  void end(EndReason reason, int node);

  std::optional<EndReason> terminal_reason(const SearchNode& node) const;
  bool fully_expanded(const SearchNode& node) const;
  int best_end_node() const;

  SearchSettings settings_;
  int role_count_;
  random::TaskSeed seed_;
  int subtask_;
  SearchTree tree_;
  Phase phase_ = Phase::not_started;
  bool started_ = false;
  int iteration_ = 0;   // iterations completed (their rollouts applied)
  int selections_ = 0;  // iterations started
  int evaluations_ = 0;
  std::vector<int> path_;  // this iteration's selection; c appended once chosen
  std::vector<PendingChild> pending_children_;
  std::vector<Rollout> rollouts_;
  std::vector<EvaluationKey> outstanding_;
  std::vector<EvaluationKey> issued_;  // sorted, to tell a duplicate from an unknown key
  std::vector<SearchEvent> events_;
  std::optional<SearchResult> result_;
};

}  // namespace kaisha::halo
