#include "runtime/halo/search/backpropagation.hpp"

namespace kaisha::halo {

double rollout_reward(bool success, const SearchSettings& settings) {
  return success ? settings.success_reward : settings.failure_penalty;
}

void apply_eq11(SearchTree& tree, int node, double reward, VisitOrder order) {
  SearchNode& n = tree.node(node);
  double children_sum = 0.0;
  for (int child : n.children) children_sum += tree.node(child).value;
  if (order == VisitOrder::increment_first) ++n.visits;
  const int denominator = n.visits + static_cast<int>(n.children.size());
  // Only increment_after reaches 0 (see the header).
  const double divisor = denominator > 0 ? static_cast<double>(denominator) : 1.0;
  n.value = (n.value * n.visits + reward + children_sum) / divisor;
  if (order == VisitOrder::increment_after) ++n.visits;
}

void backpropagate(SearchTree& tree, const std::vector<int>& path, double reward, VisitOrder order) {
  for (auto it = path.rbegin(); it != path.rend(); ++it) apply_eq11(tree, *it, reward, order);
}

}  // namespace kaisha::halo
