// Eq. 9 (halo.md §12 item 13).
#include "runtime/halo/search/uct.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kaisha::halo {
namespace uct_test {

TEST(HaloUct, MatchesTheHandComputedGoldenValue) {
  // 0.4 + 1.4 * sqrt(ln 10 / 3) = 1.6265...
  EXPECT_NEAR(uct_score(1.2, 3, 10, 1.4), 1.6265, 1e-4);
  EXPECT_DOUBLE_EQ(uct_score(1.2, 3, 10, 1.4), 0.4 + 1.4 * std::sqrt(std::log(10.0) / 3.0));
}

TEST(HaloUct, AnUnvisitedNodeScoresInfinity) {
  EXPECT_EQ(uct_score(0.9, 0, 10, 1.4), std::numeric_limits<double>::infinity());
  EXPECT_EQ(uct_score(0.0, 0, 0, 0.0), std::numeric_limits<double>::infinity());
}

TEST(HaloUct, AParentWithoutVisitsAddsNoExplorationTermInsteadOfANan) {
  EXPECT_DOUBLE_EQ(uct_score(1.0, 2, 0, 1.4), 0.5);
  EXPECT_DOUBLE_EQ(uct_score(1.0, 2, 1, 1.4), 0.5);  // ln 1 = 0
}

TEST(HaloUct, ExplorationZeroIsPureExploitation) { EXPECT_DOUBLE_EQ(uct_score(1.5, 3, 100, 0.0), 0.5); }

SearchTree tree_with_children(const std::vector<std::pair<double, int>>& value_visits, int parent_visits) {
  SearchTree tree;
  tree.node(SearchTree::kRoot).visits = parent_visits;
  for (const auto& [value, visits] : value_visits) {
    const int id = tree.add_child(SearchTree::kRoot, 0, "", NodeLabel::continue_, value);
    tree.node(id).visits = visits;
  }
  return tree;
}

TEST(HaloUct, SelectsTheChildWithTheHighestScore) {
  // Scores: 0.2 + e, 0.6 + e, 0.4 + e (same n, so the same exploration e).
  const SearchTree tree = tree_with_children({{0.4, 2}, {1.2, 2}, {0.8, 2}}, 6);
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 1.4), 2);
}

TEST(HaloUct, ExplorationCanOutweighAHigherMean) {
  // Child 1: 0.9 mean over 9 visits; child 2: 0.5 over 1 visit, whose
  // exploration term 1.4 * sqrt(ln 10) = 2.12 wins.
  const SearchTree tree = tree_with_children({{8.1, 9}, {0.5, 1}}, 10);
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 1.4), 2);
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 0.0), 1);
}

TEST(HaloUct, ATieGoesToTheFirstChild) {
  const SearchTree tree = tree_with_children({{0.3, 2}, {0.6, 2}, {0.6, 2}}, 6);
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 1.4), 2);
}

TEST(HaloUct, TheFirstUnvisitedChildWinsOverLaterUnvisitedOnes) {
  const SearchTree tree = tree_with_children({{5.0, 1}, {0.1, 0}, {0.9, 0}}, 1);
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 1.4), 2);
}

TEST(HaloUct, AChildlessNodeSelectsNothing) {
  const SearchTree tree;
  EXPECT_EQ(select_child(tree, SearchTree::kRoot, 1.4), -1);
}

}  // namespace uct_test
}  // namespace kaisha::halo
