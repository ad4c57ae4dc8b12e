#include "runtime/halo/search/mcts_search.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/halo/search/backpropagation.hpp"
#include "runtime/halo/search/uct.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"
#include "runtime/random/stream_key.hpp"

namespace kaisha::halo {

namespace {

// Stands in for the task id in TaskSeed: the search's draws depend on the
// seed setting alone, as the brief of item 25 asks (two runs, same logs).
constexpr const char* kSeedScope = "halo.search";

int checked_role_count(int role_count) {
  if (role_count < 1) {
    throw std::invalid_argument("MctsSearch: role_count is " + std::to_string(role_count) +
                                "; the search needs at least one role");
  }
  return role_count;
}

SearchSettings checked(SearchSettings settings) {
  validate(settings);
  return settings;
}

}  // namespace

MctsSearch::MctsSearch(SearchSettings settings, int role_count, uint64_t seed, int subtask)
    : settings_(checked(settings)),
      role_count_(checked_role_count(role_count)),
      seed_(kSeedScope, seed),
      subtask_(subtask) {}

std::vector<EvaluationRequest> MctsSearch::start() {
  if (started_) throw std::logic_error("MctsSearch::start: the search has already started");
  started_ = true;
  std::vector<EvaluationRequest> out;
  if (phase_ == Phase::done) return out;  // stopped before it started
  phase_ = Phase::between_iterations;
  run_iterations(out);
  return out;
}

std::vector<EvaluationRequest> MctsSearch::on_evaluated(const EvaluationKey& key, Evaluation evaluation) {
  if (!started_) throw std::logic_error("MctsSearch::on_evaluated: the search has not started");
  // Everything is checked before anything changes.
  const auto found = std::find(outstanding_.begin(), outstanding_.end(), key);
  if (found == outstanding_.end()) {
    const bool issued = std::binary_search(issued_.begin(), issued_.end(), key);
    throw std::invalid_argument("MctsSearch::on_evaluated: " + to_string(key) +
                                (issued ? " was already answered" : " was never requested"));
  }
  if (std::isnan(evaluation.score)) {
    throw std::invalid_argument("MctsSearch::on_evaluated: the score of " + to_string(key) + " is not a number");
  }
  evaluation.score = std::clamp(evaluation.score, 0.0, 1.0);
  outstanding_.erase(found);

  std::vector<EvaluationRequest> out;
  if (phase_ == Phase::done) return out;  // in flight when the search ended
  if (key.kind == EvaluationKind::expansion) {
    on_expansion_evaluated(key, std::move(evaluation), out);
  } else {
    on_rollout_evaluated(key, std::move(evaluation), out);
  }
  run_iterations(out);
  return out;
}

void MctsSearch::stop() {
  if (phase_ == Phase::done) return;
  end(EndReason::stopped, best_end_node());
}

SearchResult MctsSearch::result() const {
  if (!result_) throw std::logic_error("MctsSearch::result: the search has not ended");
  return *result_;
}

std::vector<SearchEvent> MctsSearch::take_events() { return std::exchange(events_, {}); }

void MctsSearch::run_iterations(std::vector<EvaluationRequest>& out) {
  // An iteration whose rollouts all start from a terminal child needs no
  // evaluation and is over at once; the iteration cap bounds this loop.
  while (phase_ == Phase::between_iterations) start_iteration(out);
}

void MctsSearch::start_iteration(std::vector<EvaluationRequest>& out) {
  if (iteration_ >= settings_.max_iterations) {
    end(EndReason::iteration_cap, best_end_node());
    return;
  }
  path_.assign(1, SearchTree::kRoot);
  while (fully_expanded(tree_.node(path_.back()))) {
    path_.push_back(select_child(tree_, path_.back(), settings_.exploration));
  }
  ++selections_;
  events_.emplace_back(SelectionEvent{iteration_, path_});

  const int leaf = path_.back();
  if (const auto reason = terminal_reason(tree_.node(leaf))) {
    end(*reason, leaf);
    return;
  }
  if (!fully_expanded(tree_.node(leaf))) {
    request_expansion(leaf, out);
    return;
  }
  start_rollouts(out);
}

void MctsSearch::request_expansion(int leaf, std::vector<EvaluationRequest>& out) {
  const SearchNode& node = tree_.node(leaf);
  pending_children_.clear();
  if (settings_.width == ExpansionWidth::full) {
    for (int role = 0; role < role_count_; ++role) pending_children_.push_back(PendingChild{role, std::nullopt});
  } else {
    // Children are created in role order, so the untried roles are the ones
    // above the last child's.
    const int next = node.children.empty() ? 0 : tree_.node(node.children.back()).role + 1;
    pending_children_.push_back(PendingChild{next, std::nullopt});
  }
  if (evaluations_ + static_cast<int>(pending_children_.size()) > settings_.max_evaluations) {
    pending_children_.clear();
    end(EndReason::evaluation_cap, best_end_node());
    return;
  }
  phase_ = Phase::expanding;
  const std::vector<PathEntry> context = tree_.path_context(leaf);
  for (const PendingChild& child : pending_children_) {
    issue(EvaluationRequest{EvaluationKey{iteration_, EvaluationKind::expansion, child.role, 0}, child.role,
                            node.depth + 1, leaf, context},
          out);
  }
}

void MctsSearch::on_expansion_evaluated(const EvaluationKey& key, Evaluation evaluation,
                                        std::vector<EvaluationRequest>& out) {
  for (PendingChild& child : pending_children_) {
    if (child.role == key.index) child.evaluation = std::move(evaluation);
  }
  const bool all_arrived = std::all_of(pending_children_.begin(), pending_children_.end(),
                                       [](const PendingChild& child) { return child.evaluation.has_value(); });
  if (!all_arrived) return;

  const int leaf = path_.back();
  ExpansionEvent event{iteration_, leaf, {}};
  for (PendingChild& child : pending_children_) {
    Evaluation& e = *child.evaluation;
    const int id = tree_.add_child(leaf, child.role, std::move(e.answer), e.label, e.score);
    event.children.push_back(ExpandedChild{id, child.role, e.label, e.score});
  }
  pending_children_.clear();
  events_.emplace_back(std::move(event));
  start_rollouts(out);
}

void MctsSearch::start_rollouts(std::vector<EvaluationRequest>& out) {
  const int c = select_child(tree_, path_.back(), settings_.exploration);
  path_.push_back(c);
  const SearchNode& from = tree_.node(c);
  const std::optional<EndReason> terminal = terminal_reason(from);
  const int steps_each = terminal ? 0 : settings_.max_depth - from.depth;
  if (evaluations_ + settings_.attempts * steps_each > settings_.max_evaluations) {
    end(EndReason::evaluation_cap, best_end_node());
    return;
  }
  phase_ = Phase::rolling_out;
  rollouts_.assign(static_cast<size_t>(settings_.attempts), Rollout{});
  if (terminal) {
    const RolloutEnd end = *terminal == EndReason::terminal_success ? RolloutEnd::success
                           : *terminal == EndReason::terminal_fail  ? RolloutEnd::fail
                                                                    : RolloutEnd::depth_exhausted;
    for (Rollout& rollout : rollouts_) {
      rollout.finished = true;
      rollout.end = end;
    }
    finish_rollouts();
    return;
  }
  const std::vector<PathEntry> context = tree_.path_context(c);
  for (int r = 0; r < settings_.attempts; ++r) {
    rollouts_[static_cast<size_t>(r)].context = context;
    request_rollout_step(r, out);
  }
}

void MctsSearch::request_rollout_step(int rollout, std::vector<EvaluationRequest>& out) {
  Rollout& state = rollouts_[static_cast<size_t>(rollout)];
  const int step = static_cast<int>(state.roles.size());
  random::RandomStream stream(seed_, random::StreamKey("halo.rollout", subtask_, iteration_, rollout, step));
  const int role = static_cast<int>(random::uniform_below(stream, static_cast<uint64_t>(role_count_)));
  state.roles.push_back(role);
  const int c = path_.back();
  issue(EvaluationRequest{EvaluationKey{iteration_, EvaluationKind::rollout, rollout, step}, role,
                          tree_.node(c).depth + 1 + step, c, state.context},
        out);
}

void MctsSearch::on_rollout_evaluated(const EvaluationKey& key, Evaluation evaluation,
                                      std::vector<EvaluationRequest>& out) {
  Rollout& state = rollouts_[static_cast<size_t>(key.index)];
  const int depth = tree_.node(path_.back()).depth + 1 + key.step;
  // The score of a transient step enters nothing: Eq. 11 sums the tree
  // children's values and the rollout's λ only.
  state.context.push_back(PathEntry{state.roles[static_cast<size_t>(key.step)], std::move(evaluation.answer)});
  if (evaluation.label == NodeLabel::success || evaluation.label == NodeLabel::fail || depth >= settings_.max_depth) {
    state.finished = true;
    state.end = evaluation.label == NodeLabel::success ? RolloutEnd::success
                : evaluation.label == NodeLabel::fail  ? RolloutEnd::fail
                                                       : RolloutEnd::depth_exhausted;
  } else {
    request_rollout_step(key.index, out);
  }
  const bool all_finished =
      std::all_of(rollouts_.begin(), rollouts_.end(), [](const Rollout& rollout) { return rollout.finished; });
  if (all_finished) finish_rollouts();
}

void MctsSearch::finish_rollouts() {
  for (size_t r = 0; r < rollouts_.size(); ++r) {
    const Rollout& rollout = rollouts_[r];
    const double reward = rollout_reward(rollout.end == RolloutEnd::success, settings_);
    events_.emplace_back(
        RolloutFinishedEvent{iteration_, static_cast<int>(r), path_.back(), rollout.roles, rollout.end, reward});
    backpropagate(tree_, path_, reward, settings_.visit_order);
    BackpropagatedEvent event{iteration_, static_cast<int>(r), {}};
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      const SearchNode& node = tree_.node(*it);
      event.updates.push_back(NodeUpdate{node.id, node.value, node.visits});
    }
    events_.emplace_back(std::move(event));
  }
  rollouts_.clear();
  ++iteration_;
  phase_ = Phase::between_iterations;
}

void MctsSearch::issue(EvaluationRequest request, std::vector<EvaluationRequest>& out) {
  ++evaluations_;
  outstanding_.push_back(request.key);
  issued_.insert(std::upper_bound(issued_.begin(), issued_.end(), request.key), request.key);
  out.push_back(std::move(request));
}

void MctsSearch::end(EndReason reason, int node) {
  phase_ = Phase::done;
  pending_children_.clear();
  rollouts_.clear();
  SearchResult result;
  result.reason = reason;
  result.iterations = selections_;
  result.evaluations = evaluations_;
  const SearchNode& last = tree_.node(node);
  if (last.depth >= 1) {
    result.answer = last.answer;
    result.success = last.label == NodeLabel::success;
    for (int id : tree_.path_to(node)) {
      if (id != SearchTree::kRoot) result.nodes.push_back(id);
    }
    result.trajectory = tree_.path_context(node);
  }
  events_.emplace_back(SearchEndedEvent{iteration_, reason, node, result.success});
  result_ = std::move(result);
}

std::optional<EndReason> MctsSearch::terminal_reason(const SearchNode& node) const {
  if (node.depth < 1) return std::nullopt;
  if (node.label == NodeLabel::success) return EndReason::terminal_success;
  if (node.label == NodeLabel::fail) return EndReason::terminal_fail;
  if (node.depth >= settings_.max_depth) return EndReason::depth_limit;
  return std::nullopt;
}

bool MctsSearch::fully_expanded(const SearchNode& node) const {
  // A terminal node is never expanded, so it never counts as fully
  // expanded and selection stops on it.
  return static_cast<int>(node.children.size()) >= role_count_;
}

int MctsSearch::best_end_node() const {
  int at = SearchTree::kRoot;
  while (!tree_.node(at).children.empty()) {
    int best = -1;
    for (int child : tree_.node(at).children) {
      if (best == -1 || tree_.node(child).value > tree_.node(best).value) best = child;
    }
    at = best;
  }
  return at;
}

}  // namespace kaisha::halo
