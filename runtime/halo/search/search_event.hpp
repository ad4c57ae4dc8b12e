// What the search did, step by step, for the driver to journal and render
// (halo.md §12 item 22: selected path, expansions, rollout labels, λ,
// updated v and n, and the end). Events are plain values. For the same
// settings, roles, seed, subtask and evaluations they form the same
// sequence whatever order the evaluations arrived in (item 25): expansions
// and rollouts are reported when they are applied, and they are applied in
// child and rollout order, never in arrival order.
#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include "runtime/halo/search/node_label.hpp"
#include "runtime/halo/search/search_result.hpp"

namespace kaisha::halo {

// How a rollout ended: a step judged success or fail, or every step up to
// the maximum depth judged continue (penalised like fail).
enum class RolloutEnd { success, fail, depth_exhausted };

// "success", "fail" or "depth exhausted".
std::string_view to_string(RolloutEnd end);

// The path chosen by UCT from the root, root included.
struct SelectionEvent {
  int iteration = 0;
  std::vector<int> path;

  bool operator==(const SelectionEvent&) const = default;
};

struct ExpandedChild {
  int node = 0;
  int role = 0;
  NodeLabel label = NodeLabel::continue_;
  double value = 0.0;  // the clamped score

  bool operator==(const ExpandedChild&) const = default;
};

// New children of `parent`, in creation order.
struct ExpansionEvent {
  int iteration = 0;
  int parent = 0;
  std::vector<ExpandedChild> children;

  bool operator==(const ExpansionEvent&) const = default;
};

// One rollout from tree node `from`: the roles drawn for its steps (empty
// when `from` itself was terminal), how it ended and the λ it carries.
struct RolloutFinishedEvent {
  int iteration = 0;
  int rollout = 0;
  int from = 0;
  std::vector<int> roles;
  RolloutEnd end = RolloutEnd::fail;
  double reward = 0.0;

  bool operator==(const RolloutFinishedEvent&) const = default;
};

struct NodeUpdate {
  int node = 0;
  double value = 0.0;
  int visits = 0;

  bool operator==(const NodeUpdate&) const = default;
};

// Eq. 11 applied for one rollout: each node's value and visits afterwards,
// leaf first.
struct BackpropagatedEvent {
  int iteration = 0;
  int rollout = 0;
  std::vector<NodeUpdate> updates;

  bool operator==(const BackpropagatedEvent&) const = default;
};

// The last event of every search. `node` is the trajectory's last node (0,
// the root, when there is none).
struct SearchEndedEvent {
  int iteration = 0;
  EndReason reason = EndReason::stopped;
  int node = 0;
  bool success = false;

  bool operator==(const SearchEndedEvent&) const = default;
};

using SearchEvent =
    std::variant<SelectionEvent, ExpansionEvent, RolloutFinishedEvent, BackpropagatedEvent, SearchEndedEvent>;

}  // namespace kaisha::halo
