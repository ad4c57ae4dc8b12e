#include "runtime/halo/search/uct.hpp"

#include <cmath>
#include <limits>

namespace kaisha::halo {

double uct_score(double value, int visits, int parent_visits, double exploration) {
  if (visits <= 0) return std::numeric_limits<double>::infinity();
  const double n = visits;
  const double exploit = value / n;
  if (parent_visits < 1) return exploit;
  return exploit + exploration * std::sqrt(std::log(static_cast<double>(parent_visits)) / n);
}

int select_child(const SearchTree& tree, int parent, double exploration) {
  const SearchNode& p = tree.node(parent);
  int best = -1;
  double best_score = 0.0;
  for (int child : p.children) {
    const SearchNode& c = tree.node(child);
    const double score = uct_score(c.value, c.visits, p.visits, exploration);
    // Strictly greater: an equal score later in the list never displaces
    // the first one, and +inf == +inf keeps the first unvisited child.
    if (best == -1 || score > best_score) {
      best = child;
      best_score = score;
    }
  }
  return best;
}

}  // namespace kaisha::halo
