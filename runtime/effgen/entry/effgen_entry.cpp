#include "runtime/effgen/entry/effgen_entry.hpp"

#include "runtime/effgen/entry/effgen_settings.hpp"
#include "runtime/effgen/entry/effgen_view.hpp"

namespace kaisha::effgen {
namespace {

// The judge audits effgen's subtasks with the planner's model unless
// judge.model says otherwise.
std::string planner_model(const std::any& settings) {
  const auto* c = std::any_cast<EffgenConfig>(&settings);
  return c ? c->planner_model : "";
}

}  // namespace

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = "effgen";
  s.help = "route by complexity, decompose, run subtasks in parallel, audit (effGen)";
  s.config_section = kSection;
  s.audits_with_judge = true;
  s.runs_on = {"effgen"};
  s.summary = strategy::summarise_effgen_result;
  s.render = strategy::render_effgen_event;
  s.tree = strategy::effgen_tree;
  s.read_settings = read_effgen_settings;
  s.audit_model = planner_model;
  return s;
}

}  // namespace kaisha::effgen
