// Eq. 11 (halo.md §12 item 15), on a hand-built two-level tree:
//
//   root (v 0,   n 2)
//   ├── a  (v 0.6, n 2)
//   │   ├── a1 (v 0.5, n 1)   <- the rollout's leaf
//   │   └── a2 (v 0.8, n 0)
//   └── b  (v 0.4, n 0)
#include "runtime/halo/search/backpropagation.hpp"

#include <gtest/gtest.h>

namespace kaisha::halo {
namespace backpropagation_test {

struct TwoLevels {
  SearchTree tree;
  int a = 0, a1 = 0, a2 = 0, b = 0;

  TwoLevels() {
    a = tree.add_child(SearchTree::kRoot, 0, "a", NodeLabel::continue_, 0.6);
    b = tree.add_child(SearchTree::kRoot, 1, "b", NodeLabel::continue_, 0.4);
    a1 = tree.add_child(a, 0, "a1", NodeLabel::continue_, 0.5);
    a2 = tree.add_child(a, 1, "a2", NodeLabel::continue_, 0.8);
    tree.node(SearchTree::kRoot).visits = 2;
    tree.node(a).visits = 2;
    tree.node(a1).visits = 1;
  }
};

TEST(HaloBackpropagation, TheRewardIsTheSettingOfTheRolloutsEnd) {
  SearchSettings settings;
  EXPECT_DOUBLE_EQ(rollout_reward(true, settings), 0.7);
  EXPECT_DOUBLE_EQ(rollout_reward(false, settings), -0.3);
  settings.success_reward = 1.0;
  settings.failure_penalty = -1.0;
  EXPECT_DOUBLE_EQ(rollout_reward(true, settings), 1.0);
  EXPECT_DOUBLE_EQ(rollout_reward(false, settings), -1.0);
}

TEST(HaloBackpropagation, IncrementFirstMatchesTheHandComputedValues) {
  TwoLevels t;
  backpropagate(t.tree, t.tree.path_to(t.a1), 0.7, VisitOrder::increment_first);
  // a1:   n 2, v = (0.5*2 + 0.7) / 2               = 0.85
  // a:    n 3, v = (0.6*3 + 0.7 + 0.85 + 0.8) / 5  = 0.83
  // root: n 3, v = (0*3 + 0.7 + 0.83 + 0.4) / 5    = 0.386
  EXPECT_NEAR(t.tree.node(t.a1).value, 0.85, 1e-9);
  EXPECT_NEAR(t.tree.node(t.a).value, 0.83, 1e-9);
  EXPECT_NEAR(t.tree.node(SearchTree::kRoot).value, 0.386, 1e-9);
  EXPECT_EQ(t.tree.node(t.a1).visits, 2);
  EXPECT_EQ(t.tree.node(t.a).visits, 3);
  EXPECT_EQ(t.tree.node(SearchTree::kRoot).visits, 3);
  // Off the path: untouched.
  EXPECT_DOUBLE_EQ(t.tree.node(t.a2).value, 0.8);
  EXPECT_EQ(t.tree.node(t.a2).visits, 0);
  EXPECT_DOUBLE_EQ(t.tree.node(t.b).value, 0.4);
  EXPECT_EQ(t.tree.node(t.b).visits, 0);
}

TEST(HaloBackpropagation, IncrementAfterMatchesTheHandComputedValues) {
  TwoLevels t;
  backpropagate(t.tree, t.tree.path_to(t.a1), -0.3, VisitOrder::increment_after);
  // a1:   v = (0.5*1 - 0.3) / 1                = 0.2,     then n 2
  // a:    v = (0.6*2 - 0.3 + 0.2 + 0.8) / 4    = 0.475,   then n 3
  // root: v = (0*2 - 0.3 + 0.475 + 0.4) / 4    = 0.14375, then n 3
  EXPECT_NEAR(t.tree.node(t.a1).value, 0.2, 1e-9);
  EXPECT_NEAR(t.tree.node(t.a).value, 0.475, 1e-9);
  EXPECT_NEAR(t.tree.node(SearchTree::kRoot).value, 0.14375, 1e-9);
  EXPECT_EQ(t.tree.node(t.a1).visits, 2);
  EXPECT_EQ(t.tree.node(t.a).visits, 3);
  EXPECT_EQ(t.tree.node(SearchTree::kRoot).visits, 3);
}

TEST(HaloBackpropagation, IncrementAfterOnAChildlessUnvisitedNodeSetsItsValueToTheReward) {
  SearchTree tree;
  const int leaf = tree.add_child(SearchTree::kRoot, 0, "leaf", NodeLabel::continue_, 0.9);
  apply_eq11(tree, leaf, -0.3, VisitOrder::increment_after);
  // n + |children| = 0: the score has weight 0, λ is all that is summed.
  EXPECT_DOUBLE_EQ(tree.node(leaf).value, -0.3);
  EXPECT_EQ(tree.node(leaf).visits, 1);
}

TEST(HaloBackpropagation, IncrementFirstOnAChildlessUnvisitedNodeAddsTheRewardToTheScore) {
  SearchTree tree;
  const int leaf = tree.add_child(SearchTree::kRoot, 0, "leaf", NodeLabel::continue_, 0.2);
  apply_eq11(tree, leaf, 0.7, VisitOrder::increment_first);
  EXPECT_NEAR(tree.node(leaf).value, 0.9, 1e-12);  // (0.2*1 + 0.7) / 1
  EXPECT_EQ(tree.node(leaf).visits, 1);
}

}  // namespace backpropagation_test
}  // namespace kaisha::halo
