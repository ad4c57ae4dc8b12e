#include "runtime/hiva/entry/hiva_events.hpp"

namespace kaisha::hiva {

const std::vector<strategy::StrategyEvent>& hiva_events() {
  static const std::vector<strategy::StrategyEvent> kEvents = {
      {event::routed, true,
       "an agent's routing decision: each successor's theta, Dist, zeta and score, and the chosen"},
      {event::forward_pass, true, "the graph that ran, the agents that ran, the routed edges and the answer y"},
      {event::loss, true, "the environment's feedback on y (or the self-critique) and its success flag"},
      {event::gradient, true, "an agent's textual gradient (the global one at the aggregator)"},
      {event::reward, true, "an agent's reward r from its gradient (1: positive or neutral, 0: critical)"},
      {event::prompt_updated, true, "an agent's new system prompt and its version"},
      {event::tool_updated, true, "an agent's new tool version (its code validated in the sandbox)"},
      {event::tool_rejected, true, "a generated tool that failed validation: the agent keeps its old one"},
      {event::topology_edit, true, "an agent's topology decision and whether it was applied (or why not)"},
      {event::repair, true, "RepairTopology's changes: reverted edits, pruned agents and edges"},
      {event::iteration, true, "an iteration's end: the changes, rewards, posteriors, calls, tokens and USD"},
      {event::cap_reached, true, "the task's model-call or USD cap was reached: the last answer ends it"},
      {event::problem, true, "a call failed or its reply was not as asked: the documented default was used"},
  };
  return kEvents;
}

}  // namespace kaisha::hiva
