// A node evaluation is the unit of work the search asks its driver for: one
// role agent answers the subtask after the agents in its context, the judge
// labels the answer and the scorer scores it (halo.md §6.2: three model
// calls, solve, judge, score). The search never sees a model call; it sees
// requests go out and evaluations come back, in any order.
#pragma once

#include <compare>
#include <string>
#include <vector>

#include "runtime/halo/search/node_label.hpp"
#include "runtime/halo/search/path_entry.hpp"

namespace kaisha::halo {

enum class EvaluationKind { expansion, rollout };

std::string_view to_string(EvaluationKind kind);

// Names one evaluation of one search. Keys are totally ordered (iteration,
// then kind, then index, then step), and a key names the same decision in
// every run with the same inputs, so a driver can journal results by key
// and replay them in any order.
struct EvaluationKey {
  int iteration = 0;
  EvaluationKind kind = EvaluationKind::expansion;
  int index = 0;  // expansion: the new child's role; rollout: the rollout's number, from 0
  int step = 0;   // expansion: 0; rollout: the step's number, from 0

  auto operator<=>(const EvaluationKey&) const = default;
};

// "iteration 3 rollout 1 step 2" or "iteration 0 expansion role 2".
std::string to_string(const EvaluationKey& key);

struct EvaluationRequest {
  EvaluationKey key;
  int role = 0;                    // index into the subtask's role list
  int depth = 1;                   // the new agent's depth: its context has depth - 1 entries
  int after = 0;                   // the tree node the agent follows (the root for depth 1)
  std::vector<PathEntry> context;  // the agents before it, root side first (item 12)

  bool operator==(const EvaluationRequest&) const = default;
};

struct Evaluation {
  std::string answer;
  NodeLabel label = NodeLabel::continue_;
  double score = 0.5;  // the scorer's; the search clamps it to [0, 1]
};

}  // namespace kaisha::halo
