// HALO's judging agent's reply (halo.md §6.1, §8 item 9): its own labelling
// call on one node's answer, not kaisha's judge (runtime/judge).
#pragma once

#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kStatusKey = "status";

// The subtask is done (success), cannot be done from this answer (fail), or
// needs more work after it (continue). `continue_` because `continue` is a
// keyword.
enum class JudgeLabel { success, fail, continue_ };

// "success", "fail", "continue".
std::string_view to_string(JudgeLabel label);

// Reads {"status": "success" | "fail" | "continue"}, the value trimmed and in
// any case. Anything else is `continue`, HALO's default: it neither ends the
// search nor penalises the path.
Parsed<JudgeLabel> parse_judge_label(std::string_view reply);

}  // namespace kaisha::halo
