// What a task that was interrupted had already done, for resuming it.
//
// A resumed task's driver starts again from the task's text and is fed, in
// their first order, the outcomes the journal kept (outcome_codec.hpp). A
// driver is deterministic in its outcomes, so it asks for the same effects
// with the same ids (counted from the task's first effect, which is id 1
// here): an effect whose outcome is kept is not executed again
// (take_outcome), and one whose outcome is not kept — it was in flight when
// the process died, or had not started — runs now, once.
//
// An ask whose outcome was not kept runs again, but the steps its
// employee's tool loop had finished (ask_step.hpp) are fed to it instead of
// being made again (ask_steps).
//
// State a strategy keeps beyond one task (the pyramid's quality scores) comes
// as it was before the task changed it (state_at_start), so that replaying
// the task's outcomes changes it once, as the first run did.
//
// Hires and fires are the ledger's own record: a hire the ledger charged is
// never charged again, even when its answer was lost with the process. Each
// agent's hires and fires of the task, in the ledger's order, are consumed
// as the driver asks for them again (take_hire / take_fire).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"

namespace kaisha::driver {

// One key of a strategy's state (store::StateRow without its history).
struct StateValue {
  std::string strategy;
  std::string key;
  json value;
};

class ReplayLog {
 public:
  // `outcomes`: the recorded texts in their order; `ask_steps`: each ask's
  // kept loop steps by its call id. A text that cannot be read is an error
  // naming its place.
  static Result<ReplayLog> from_records(const std::vector<std::string>& outcomes,
                                        const std::map<CallId, std::vector<std::string>>& ask_steps = {});

  // One ledger event of the task, in the ledger's order.
  void ledger_hire(const std::string& agent) { agents_[agent].push_back(true); }
  void ledger_fire(const std::string& agent) { agents_[agent].push_back(false); }

  // The outcomes, in their recorded order (feed them in this order).
  const std::vector<Outcome>& outcomes() const { return outcomes_; }
  size_t size() const { return outcomes_.size(); }
  bool empty() const { return outcomes_.empty() && agents_.empty(); }
  // Whether an outcome for effect `id` is kept: the effect is not executed.
  bool answered(CallId id) const { return ids_.count(id) > 0; }
  // The outcome kept for effect `id` (null: none).
  const Outcome* outcome(CallId id) const {
    auto it = ids_.find(id);
    return it == ids_.end() ? nullptr : &outcomes_[it->second];
  }

  // The steps of ask `id`'s tool loop kept before the process died, as
  // texts in their order (empty: none).
  std::vector<std::string> ask_steps(CallId id) const {
    auto it = ask_steps_.find(id);
    return it == ask_steps_.end() ? std::vector<std::string>{} : it->second;
  }

  // True, once per ledger event, when `agent`'s next recorded event is a
  // hire (or a fire): it is already paid (refunded), so it is not sent again.
  bool take_hire(const std::string& agent) { return take(agent, true); }
  bool take_fire(const std::string& agent) { return take(agent, false); }

  // Every strategy's state as it was before the task changed it.
  void set_state_at_start(std::vector<StateValue> state) { state_ = std::move(state); }
  // `strategy`'s part of it, by key.
  std::vector<StateValue> state_at_start(const std::string& strategy) const {
    std::vector<StateValue> out;
    for (const auto& s : state_)
      if (s.strategy == strategy) out.push_back(s);
    return out;
  }

 private:
  bool take(const std::string& agent, bool hire);

  std::vector<Outcome> outcomes_;
  std::map<CallId, size_t> ids_;
  std::map<CallId, std::vector<std::string>> ask_steps_;
  std::map<std::string, std::deque<bool>> agents_;  // true = hire, false = fire
  std::vector<StateValue> state_;
};

}  // namespace kaisha::driver
