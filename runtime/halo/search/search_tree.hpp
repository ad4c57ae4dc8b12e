// The tree of one subtask's workflow search (halo.md §6.1, §12 item 10):
// each node below the root is one role agent that answered, was judged and
// scored; a root-to-node path is a candidate reasoning trajectory.
//
// Promises:
//  - node 0 is the dummy root: depth 0, no role (-1), no parent (-1), no
//    answer, label continue, value 0, no model call behind it;
//  - ids are dense indices in creation order and a node is never removed,
//    so an id stays valid for the tree's life (a reference from node() does
//    not: add_child may move the nodes; hold ids);
//  - a child's depth is its parent's plus one, and it is listed in its
//    parent's children in creation order (the order UCT ties are broken in);
//  - there is one tree per subtask, mutated in place by selection,
//    expansion and backpropagation across iterations (item 17); the
//    reference walks a deep copy and so loses every change below depth 1.
//    The search owns its tree and lends it out only as a const reference.
#pragma once

#include <string>
#include <vector>

#include "runtime/halo/search/node_label.hpp"
#include "runtime/halo/search/path_entry.hpp"

namespace kaisha::halo {

struct SearchNode {
  int id = 0;
  int role = -1;    // index into the subtask's role list; -1 for the root
  int parent = -1;  // -1 for the root
  std::vector<int> children;
  int depth = 0;
  std::string answer;
  NodeLabel label = NodeLabel::continue_;
  // The scorer's score in [0, 1] at creation; Eq. 11 may move it outside
  // [0, 1] afterwards (a penalty λ is negative).
  double value = 0.0;
  int visits = 0;

  bool operator==(const SearchNode&) const = default;
};

class SearchTree {
 public:
  SearchTree();  // the root alone

  static constexpr int kRoot = 0;

  // Adds a child of `parent` and returns its id. Throws std::out_of_range
  // for an unknown parent, std::invalid_argument for a negative role.
  int add_child(int parent, int role, std::string answer, NodeLabel label, double value);

  // Throw std::out_of_range for an unknown id.
  const SearchNode& node(int id) const;
  SearchNode& node(int id);

  int size() const { return static_cast<int>(nodes_.size()); }

  // The ids from the root to `id`, both included.
  std::vector<int> path_to(int id) const;

  // What an agent created below `id` is shown (item 12): the (role, answer)
  // of every node on the root path to `id` at depth >= 1, root side first,
  // `id` itself included. A new node at depth d gets the context of its
  // parent, d - 1 entries.
  std::vector<PathEntry> path_context(int id) const;

  // Same nodes, fields and links (for determinism checks).
  bool operator==(const SearchTree&) const = default;

 private:
  std::vector<SearchNode> nodes_;
};

}  // namespace kaisha::halo
