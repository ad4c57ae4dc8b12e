#include "runtime/halo/entry/halo_entry.hpp"

#include <string>
#include <utility>

#include "runtime/halo/entry/halo_events.hpp"
#include "runtime/halo/entry/halo_settings_reader.hpp"
#include "runtime/halo/entry/halo_view.hpp"

namespace kaisha::halo {

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = kHaloStrategy;
  s.help = "refine the prompt, plan one subtask at a time, design roles, search their workflow by MCTS (HALO)";
  s.config_section = kSection;
  s.runs_on = {kHaloStrategy};
  s.summary = strategy::summarise_halo_result;
  s.render = strategy::render_halo_event;
  s.tree = strategy::halo_tree;
  s.events = halo_events();
  s.read_settings = read_halo_section;
  // halo.md §10.6: the paper's two ablations.
  s.switches = strategy::switches_under(
      kSection, {{"use_prompt_refinement", "P2-P4 refine the query (off: P1 only, the raw query)"},
                 {"use_planner", "the planner decomposes step by step (off: one subtask, Q*)"}});
  return s;
}

}  // namespace kaisha::halo
