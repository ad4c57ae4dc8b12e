#include "runtime/hashiru/entry/hashiru_entry.hpp"

#include <string>
#include <utility>

#include "runtime/hashiru/entry/hashiru_view.hpp"

namespace kaisha::hashiru {

strategy::StrategyInfo catalog_entry() {
  strategy::StrategyInfo s;
  s.name = "hashiru";
  s.help = "the CEO hires, asks and fires employees under a budget (HASHIRU)";
  s.runs_on = {"hashiru"};
  s.render = strategy::render_hashiru_event;
  s.tree = strategy::hashiru_tree;
  // hashiru.md §9; `/switch NAME on|off` turns them during a session.
  s.switches = strategy::switches_under("switches", {
                                                        {"agent_creation", "the CEO may hire (AgentCreator)"},
                                                        {"local_agents", "local models may be hired and asked"},
                                                        {"cloud_agents", "cloud models may be hired and asked"},
                                                        {"tool_creation", "the CEO may write new tools"},
                                                        {"tool_invocation", "tools may be called"},
                                                        {"resource_budget", "the resource ledger limits hires"},
                                                        {"economy_budget", "the expense ledger limits spending"},
                                                        {"memory", "memories are recalled and kept"},
                                                    });
  return s;
}

}  // namespace kaisha::hashiru
