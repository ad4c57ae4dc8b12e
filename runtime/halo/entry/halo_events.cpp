#include "runtime/halo/entry/halo_events.hpp"

namespace kaisha::halo {

const std::vector<strategy::StrategyEvent>& halo_events() {
  static const std::vector<strategy::StrategyEvent> kEvents = {
      {event::refined, true, "the task triple F and the refined query Q* (stage 1)"},
      {event::subtask, true, "the planner's next subtask k and its text"},
      {event::roles, true, "the roles designed for subtask k, in the order the search numbers them"},
      {event::selection, false, "the path UCT selected from the root in one search iteration"},
      {event::expansion, true, "new children of a search node: role, judge label, score and answer"},
      {event::rollout, true, "one rollout: the roles drawn for its steps, how it ended and its reward lambda"},
      {event::backpropagated, true, "Eq. 11 applied for one rollout: each node's value v and visits n on the path"},
      {event::search_ended, true, "why subtask k's search ended, its answer, success flag and best trajectory"},
      {event::early_stop, true, "enough subtask answers agree: the majority answer ends the task"},
      {event::cap_reached, true, "the task's model-call or USD cap was reached: the best answer so far ends it"},
      {event::problem, true, "a call failed or its reply was not as asked: the documented default was used"},
  };
  return kEvents;
}

}  // namespace kaisha::halo
