#include "runtime/halo/search/search_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace kaisha::halo {

SearchTree::SearchTree() { nodes_.push_back(SearchNode{}); }

int SearchTree::add_child(int parent, int role, std::string answer, NodeLabel label, double value) {
  if (role < 0) throw std::invalid_argument("SearchTree::add_child: role " + std::to_string(role) + " is negative");
  SearchNode child;
  child.id = size();
  child.role = role;
  child.parent = parent;
  child.depth = node(parent).depth + 1;  // checks the parent
  child.answer = std::move(answer);
  child.label = label;
  child.value = value;
  nodes_.push_back(std::move(child));
  nodes_[static_cast<size_t>(parent)].children.push_back(nodes_.back().id);
  return nodes_.back().id;
}

const SearchNode& SearchTree::node(int id) const {
  if (id < 0 || id >= size()) {
    throw std::out_of_range("SearchTree: no node " + std::to_string(id) + " (the tree has " + std::to_string(size()) +
                            ")");
  }
  return nodes_[static_cast<size_t>(id)];
}

SearchNode& SearchTree::node(int id) { return const_cast<SearchNode&>(static_cast<const SearchTree&>(*this).node(id)); }

std::vector<int> SearchTree::path_to(int id) const {
  std::vector<int> path;
  for (int at = id; at != -1; at = node(at).parent) path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<PathEntry> SearchTree::path_context(int id) const {
  std::vector<PathEntry> context;
  for (int at : path_to(id)) {
    const SearchNode& n = node(at);
    if (n.depth >= 1) context.push_back(PathEntry{n.role, n.answer});
  }
  return context;
}

}  // namespace kaisha::halo
