// HiVA's interactive environment (hiva.md §2 (c)) played from a script: a
// task's "turns" (suite/scripted_turns.hpp has their rules, docs/suites.md
// their format). The task's input is the first observation; each answer of
// the agent gets the next one until the episode ends. Deterministic: the
// same answers give the same observations.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/hiva/environment/environment_feedback.hpp"
#include "runtime/suite/scripted_turns.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::hiva {

inline constexpr std::string_view kEpisodeFailed = "That was not accepted. The episode ended without success.";
// A miss with attempts left on a turn built without "otherwise" (only
// possible when the turns were not read by parse_scripted_turns).
inline constexpr std::string_view kTryAgain = "That was not accepted. Try again.";

class ScriptedEnvironment {
 public:
  // Error "suite" when the item is not of format interactive or its turns
  // break the rules (parse_suite already refuses such items).
  static Result<ScriptedEnvironment> from_item(const suite::SuiteItem& item);

  // `turns` must not be empty.
  explicit ScriptedEnvironment(std::vector<suite::ScriptedTurn> turns);

  // The agent's answer to the current observation. text: the next
  // observation (a match's reply, a miss's "otherwise", or kEpisodeFailed
  // for a last miss without one). success and score are set exactly when
  // this answer ended the episode. After the end it answers the same
  // outcome again and changes nothing.
  EnvironmentFeedback step(std::string_view answer);
  // step() with each answer in order, from where the episode stands: the
  // feedback to the last one. The environment keeps no state between a
  // caller's requests, so a whole episode is judged by playing all its
  // answers again from the first turn. `answers` must not be empty.
  EnvironmentFeedback play(const std::vector<std::string>& answers);

  bool ended() const { return ended_; }
  // The turn the next answer is checked against (turns().size() once won).
  size_t turn() const { return turn_; }
  // Answers taken so far, misses included.
  size_t steps() const { return steps_; }
  const std::vector<suite::ScriptedTurn>& turns() const { return turns_; }

 private:
  EnvironmentFeedback end(std::string text, bool success);

  std::vector<suite::ScriptedTurn> turns_;
  size_t turn_ = 0;
  int misses_ = 0;  // on the current turn
  size_t steps_ = 0;
  bool ended_ = false;
  EnvironmentFeedback outcome_;
};

// What an agent system answering turn k+1 of an episode is asked: the task
// (the first observation), then each earlier answer and the environment's
// reply to it, then a request to answer the last reply. `answers` and
// `observations` pair up (the same length).
std::string episode_so_far(std::string_view task, const std::vector<std::string>& answers,
                           const std::vector<std::string>& observations);

}  // namespace kaisha::hiva
