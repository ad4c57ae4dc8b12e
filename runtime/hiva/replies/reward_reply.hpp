// The bandit reward of an agent (hiva.md §6.3, App. D.4): an LLM classifies
// the agent's localised gradient as POSITIVE, NEUTRAL or CRITICAL, and the
// reward r_i is 1 for positive or neutral, 0 for critical — an agent is
// rewarded for good work even when the task failed because of others.
#pragma once

#include <optional>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

enum class RewardClass { positive, neutral, critical };

std::string_view to_string(RewardClass c);  // "POSITIVE", "NEUTRAL", "CRITICAL"

struct Reward {
  std::optional<RewardClass> label;  // nullopt for a bare digit or the default
  int value = 1;                     // r_i: 0 or 1
};

// The class word, case-insensitive, is found like a topology operation: the
// first of after a label ("Classification: **Critical**"), at a line start,
// anywhere, that holds one; "NEGATIVE" counts as CRITICAL; a word right
// after "not" or "non" is not counted. Two different classes in that place
// are ambiguous. A reply of just "0" or "1" (after a label, markdown,
// a trailing '.') is the reward itself.
//
// Unreadable or ambiguous replies give 1, with a problem: the reward is 0
// only when the classifier clearly calls the gradient critical, as neutral
// gives 1, and an unreadable reply is no evidence that the agent failed.
Parsed<Reward> parse_reward(std::string_view reply);

}  // namespace kaisha::hiva
