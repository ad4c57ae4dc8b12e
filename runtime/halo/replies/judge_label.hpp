// HALO's judging agent's reply (halo.md §6.1, §8 item 9): its own labelling
// call on one node's answer, not kaisha's judge (runtime/judge).
#pragma once

#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"
#include "runtime/halo/search/node_label.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kStatusKey = "status";

// The label the search reads (node_label.hpp). Reads {"status": "success" | "fail" | "continue"}, the value trimmed and
// in any case. Anything else is `continue`, HALO's default: it neither ends the search nor penalises the path.
Parsed<NodeLabel> parse_judge_label(std::string_view reply);

}  // namespace kaisha::halo
