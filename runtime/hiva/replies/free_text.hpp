// Replies that are plain text: an agent's output y_i, the aggregator's
// answer, and a generated successor instruction (Fig. 6), whose reply the
// model tends to dress as `Output: "Retrieve Austin, Texas population."`.
#pragma once

#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

// The reply trimmed, ill-formed UTF-8 replaced by U+FFFD (a problem says
// where). An empty reply is an empty value with a problem and `defaulted`.
// `who` names the reply in the problem ("agent output", "aggregation").
Parsed<std::string> parse_free_text(std::string_view reply, std::string_view who);

// The instruction for a successor: the reply trimmed, without a ``` fence,
// a leading "Instruction:" or "Output:" label, or the quotes or emphasis
// wrapped around it. When that leaves nothing: `fallback` (the driver gives
// the instruction the current agent received) with a problem.
Parsed<std::string> parse_instruction(std::string_view reply, std::string_view fallback);

}  // namespace kaisha::hiva
