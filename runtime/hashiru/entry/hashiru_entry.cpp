#include "runtime/hashiru/entry/hashiru_entry.hpp"

#include "runtime/hashiru/entry/hashiru_view.hpp"

namespace kaisha::hashiru {

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = "hashiru";
  s.help = "the CEO hires, asks and fires employees under a budget (HASHIRU)";
  s.runs_on = {"hashiru"};
  s.render = strategy::render_hashiru_event;
  s.tree = strategy::hashiru_tree;
  return s;
}

}  // namespace kaisha::hashiru
