// Backpropagation, Eq. 11 of halo.md §6.1 (§12 item 15): after a rollout,
// every node on the selected path, leaf first, takes
//   v <- (v · n + λ(label) + Σ_{children} v_child) / (n + |children|)
// where λ is the reward of the rollout's terminal label and the children
// are the node's tree children (their values as already updated by this
// pass: the leaf is updated before its parent, as in the reference).
#pragma once

#include <vector>

#include "runtime/halo/search/search_settings.hpp"
#include "runtime/halo/search/search_tree.hpp"

namespace kaisha::halo {

// λ of a rollout that ended in success (settings.success_reward) or not
// (settings.failure_penalty: fail and depth exhausted alike, as in the
// reference).
double rollout_reward(bool success, const SearchSettings& settings);

// Applies Eq. 11 to one node and counts the visit, in `order`.
// With increment_first (the reference) n is incremented before the formula,
// so the denominator is at least 1. With increment_after the formula uses
// the old n, and a childless unvisited node has nothing to divide by: its
// value becomes λ, the mean of the one thing the formula then sums (its
// own score has weight n = 0), and n becomes 1.
void apply_eq11(SearchTree& tree, int node, double reward, VisitOrder order);

// apply_eq11 on every node of `path` (root first, as path_to gives it),
// from the last node back to the first.
void backpropagate(SearchTree& tree, const std::vector<int>& path, double reward, VisitOrder order);

}  // namespace kaisha::halo
