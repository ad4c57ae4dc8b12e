// The node model of halo.md §12 item 10 and the path context of item 12.
#include "runtime/halo/search/search_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace kaisha::halo {
namespace search_tree_test {

// Every link both ways, dense ids, depth = parent's + 1.
void expect_invariants(const SearchTree& tree) {
  for (int id = 0; id < tree.size(); ++id) {
    const SearchNode& n = tree.node(id);
    EXPECT_EQ(n.id, id);
    for (int child : n.children) {
      EXPECT_EQ(tree.node(child).parent, id);
      EXPECT_EQ(tree.node(child).depth, n.depth + 1);
    }
    if (id == SearchTree::kRoot) continue;
    const SearchNode& parent = tree.node(n.parent);
    EXPECT_EQ(std::count(parent.children.begin(), parent.children.end(), id), 1) << "node " << id;
  }
}

TEST(HaloSearchTree, StartsWithTheDummyRootAlone) {
  SearchTree tree;
  ASSERT_EQ(tree.size(), 1);
  const SearchNode& root = tree.node(SearchTree::kRoot);
  EXPECT_EQ(root.id, 0);
  EXPECT_EQ(root.role, -1);
  EXPECT_EQ(root.parent, -1);
  EXPECT_EQ(root.depth, 0);
  EXPECT_TRUE(root.children.empty());
  EXPECT_TRUE(root.answer.empty());
  EXPECT_EQ(root.visits, 0);
}

TEST(HaloSearchTree, ChildrenGetDenseIdsLinksBothWaysAndTheirParentsDepthPlusOne) {
  SearchTree tree;
  const int a = tree.add_child(SearchTree::kRoot, 2, "a", NodeLabel::continue_, 0.25);
  const int b = tree.add_child(SearchTree::kRoot, 0, "b", NodeLabel::fail, 0.5);
  const int a1 = tree.add_child(a, 1, "a1", NodeLabel::success, 0.75);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(a1, 3);
  EXPECT_EQ(tree.node(SearchTree::kRoot).children, (std::vector<int>{a, b}));
  const SearchNode& n = tree.node(a1);
  EXPECT_EQ(n.parent, a);
  EXPECT_EQ(n.depth, 2);
  EXPECT_EQ(n.role, 1);
  EXPECT_EQ(n.answer, "a1");
  EXPECT_EQ(n.label, NodeLabel::success);
  EXPECT_DOUBLE_EQ(n.value, 0.75);
  EXPECT_EQ(n.visits, 0);
  expect_invariants(tree);
}

TEST(HaloSearchTree, PathToGoesFromTheRootToTheNode) {
  SearchTree tree;
  const int a = tree.add_child(SearchTree::kRoot, 0, "a", NodeLabel::continue_, 0.5);
  tree.add_child(SearchTree::kRoot, 1, "b", NodeLabel::continue_, 0.5);
  const int a1 = tree.add_child(a, 1, "a1", NodeLabel::continue_, 0.5);
  const int a1x = tree.add_child(a1, 0, "a1x", NodeLabel::continue_, 0.5);
  EXPECT_EQ(tree.path_to(a1x), (std::vector<int>{0, a, a1, a1x}));
  EXPECT_EQ(tree.path_to(SearchTree::kRoot), (std::vector<int>{0}));
}

TEST(HaloSearchTree, PathContextHoldsEveryNodeBelowTheRootInOrder) {
  SearchTree tree;
  const int a = tree.add_child(SearchTree::kRoot, 2, "first", NodeLabel::continue_, 0.5);
  const int a1 = tree.add_child(a, 0, "second", NodeLabel::continue_, 0.5);
  // What a depth-3 child of a1 is shown: the depth-1 and depth-2 answers.
  EXPECT_EQ(tree.path_context(a1), (std::vector<PathEntry>{{2, "first"}, {0, "second"}}));
  EXPECT_TRUE(tree.path_context(SearchTree::kRoot).empty());
}

TEST(HaloSearchTree, RejectsAnUnknownNodeAndANegativeRole) {
  SearchTree tree;
  EXPECT_THROW(tree.node(1), std::out_of_range);
  EXPECT_THROW(tree.node(-1), std::out_of_range);
  EXPECT_THROW(tree.add_child(5, 0, "x", NodeLabel::continue_, 0.5), std::out_of_range);
  EXPECT_THROW(tree.add_child(SearchTree::kRoot, -1, "x", NodeLabel::continue_, 0.5), std::invalid_argument);
  EXPECT_EQ(tree.size(), 1);
  EXPECT_TRUE(tree.node(SearchTree::kRoot).children.empty());
}

}  // namespace search_tree_test
}  // namespace kaisha::halo
