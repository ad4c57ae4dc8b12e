// The script of an interactive task (format "interactive", docs/suites.md):
// the environment's side of a multi-turn episode, one turn per answer it
// waits for. The task's input is the first observation; each answer is
// checked against the current turn:
//   * it matches when it contains one of `expect` (ASCII case-insensitive
//     substrings), or always when `expect` is empty;
//   * a match moves to the next turn and returns `reply` as the next
//     observation; a match on the last turn ends the episode with `success`;
//   * a miss uses one of the turn's `attempts`: while some remain, `otherwise`
//     is the next observation and the turn stays; the last miss ends the
//     episode, failed.
// Substrings rather than regular expressions: model answers are long and
// std::regex is slow and recursive on them; a list of substrings covers the
// scripted cases.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::suite {

inline constexpr size_t kMaxTurns = 1000;
inline constexpr int kMaxAttempts = 100;

struct ScriptedTurn {
  std::vector<std::string> expect;       // any of these; empty: any answer
  std::string reply;                     // the observation after a match
  std::optional<std::string> otherwise;  // the observation after a miss
  int attempts = 1;                      // answers this turn takes, 1..kMaxAttempts
  bool success = true;                   // last turn only: how a match ends the episode
};

// The turns of a "turns" value: a non-empty array (at most kMaxTurns) of
// objects with the keys "expect" (a non-empty string or a non-empty array of
// them), "reply" (a string, required), "otherwise" (a string), "attempts"
// (an integer 1..100; above 1 needs "otherwise") and, on the last turn only,
// "success" (a boolean, default true). Unknown keys are refused.
// Error code "suite"; the message names the place, e.g.
//   "turns"[1].reply: expected a string, got a number
Result<std::vector<ScriptedTurn>> parse_scripted_turns(const json& turns);

}  // namespace kaisha::suite
