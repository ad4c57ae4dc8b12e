#include "runtime/hiva/entry/hiva_entry.hpp"

#include <string>
#include <utility>

#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/entry/hiva_settings_reader.hpp"
#include "runtime/hiva/entry/hiva_view.hpp"

namespace kaisha::hiva {

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = kHivaStrategy;
  s.help = "a self-evolving graph of agents: KABB routing, textual gradients, prompt, tool and topology updates (HiVA)";
  s.config_section = kSection;
  s.runs_on = {kHivaStrategy};
  s.summary = strategy::summarise_hiva_result;
  s.render = strategy::render_hiva_event;
  s.tree = strategy::hiva_tree;
  s.events = hiva_events();
  s.read_settings = read_hiva_section;
  // hiva.md §11.8: the paper's four ablations.
  s.switches = strategy::switches_under(
      kSection, {{"use_kabb", "KABB routing (off: every agent routes to all its successors, w/o-KABB)"},
                 {"use_semantic", "prompt and tool updates (off: they stay as they are, w/o-SEV)"},
                 {"use_topology", "topology edits (off: the graph keeps its shape, w/o-TEV)"},
                 {"use_environment", "the environment's feedback (off: the aggregator critiques itself, w/o-Env)"}});
  return s;
}

}  // namespace kaisha::hiva
