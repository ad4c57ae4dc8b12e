// What a resumed task does with each effect its new driver asks for
// (replay_log.hpp): the rules DriverRunner follows, as a plain class.
//
//   journal steps and events   made while the kept outcomes are being fed
//                              were written by the first run: skipped.
//   an effect with a kept      not executed: its outcome is fed instead (an
//   outcome                    outcome of another kind stops the resume, the
//                              strategy or its config changed). A hire or
//                              fire it answered that the ledger made is
//                              adopted or dismissed, as the first run left it.
//   a hire or fire the ledger  made, its answer lost with the process: not
//   made without a kept answer sent again; adopted or dismissed, and
//                              answered with the ledger's budget now.
//   a tool in flight that is   not run again; the driver is told so (after
//   not safe to repeat         the kept outcomes), with a note in the journal.
//   anything else unanswered   runs now, once, noted as re-run.
// Effects of other scopes (a direct request, another task) are executed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/replay_log.hpp"

namespace kaisha::driver {

struct ResumeStep {
  // False: execute the effect as for any task.
  bool handled = false;
  // A hire the ledger already charged: list and start the agent, charge nothing.
  bool adopt = false;
  // A fire the ledger already refunded: stop and unlist the agent.
  bool dismiss = false;
  // Answer the effect with the ledger's budget view now (a hire's or a
  // fire's answer lost with the process): its kind is the effect's.
  bool answer_with_budget = false;
  // A journal note to write (null: none): {"rerun": ..} or {"not_repeated": ..}.
  json note;
  // An outcome to feed once the kept ones are (a tool not run again).
  std::optional<Outcome> deferred;
};

class ResumePolicy {
 public:
  // `repeatable(tool)`: whether a tool in flight at the kill may run again.
  ResumePolicy(std::shared_ptr<ReplayLog> log, std::function<bool(const std::string& tool)> repeatable);

  // The step for `effect`, whose id counted from the task's first effect is
  // `kept_id` (0: it has none); `replaying` while the kept outcomes are fed.
  // Takes the ledger's hires and fires it uses from the log. An error when
  // the kept outcome does not answer the effect.
  Result<ResumeStep> step(const Effect& effect, CallId kept_id, bool replaying);

  const ReplayLog& log() const { return *log_; }

 private:
  std::shared_ptr<ReplayLog> log_;
  std::function<bool(const std::string&)> repeatable_;
};

// How a re-run effect is named in the journal: "ask Poet", "model call (plan)".
std::string effect_description(const Effect& e);

// Whether `o` is the kind of outcome `e` is answered with.
bool outcome_answers(const Effect& e, const Outcome& o);

}  // namespace kaisha::driver
