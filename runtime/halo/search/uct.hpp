// UCT selection, Eq. 9 of halo.md §6.1 (§12 item 13):
//   UCT(a) = v / n + α · sqrt(ln N / n)
// with v the node's value, n its visits and N its parent's visits.
#pragma once

#include "runtime/halo/search/search_tree.hpp"

namespace kaisha::halo {

// Eq. 9. An unvisited node (visits <= 0) scores +infinity, so every child is
// tried once before any is tried twice. A parent with fewer than one visit
// (ln N undefined or negative; only a hand-made tree has that) adds no
// exploration term rather than a NaN.
double uct_score(double value, int visits, int parent_visits, double exploration);

// The child of `parent` with the highest UCT score; a tie goes to the child
// listed first (lowest position in `children`, i.e. created first). -1 when
// `parent` has no children. Allocates nothing.
int select_child(const SearchTree& tree, int parent, double exploration);

}  // namespace kaisha::halo
