#include "runtime/pyramid/entry/pyramid_entry.hpp"

#include "runtime/pyramid/entry/pyramid_settings.hpp"
#include "runtime/pyramid/entry/pyramid_view.hpp"

namespace kaisha::pyramid {

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = "pyramid";
  s.help = "agents as tools: a pyramid of agents from a YAML library, audited by its judge (InfiAgent)";
  s.config_section = kSection;
  s.runs_on = {"pyramid"};
  s.summary = strategy::summarise_pyramid_result;
  s.render = strategy::render_pyramid_event;
  s.tree = strategy::pyramid_tree;
  s.read_settings = read_pyramid_settings;
  s.events = {
      {"merge_plan", true,
       "which accepted candidate change sets are merged, highest Q first, and which lose a conflict"},
      {"evolution", true,
       "a candidate pool changed: a candidate pruned or restored, a default model chosen or revoked, and why"},
      {"judge_failed", true, "the judge could not rule on a result (not a rejection: Q stays, no retry is used)"},
  };
  return s;
}

}  // namespace kaisha::pyramid
