// HALO's scoring agent's reply (halo.md §6.2, §8 item 8, §12 item 18): the
// value of one node's answer, in [0, 1], which the search backpropagates.
#pragma once

#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kScoreKey = "score";
inline constexpr double kDefaultScore = 0.5;  // HALO's parse-failure default

// Reads {"score": x}, x a JSON number or a string holding one ("0.55").
// The value is clamped to [0, 1] (noted in `problem`, not a default) and
// rounded to 4 decimals, as the scorer is asked to write it. No object, a
// missing key, another type, text that is not a number, NaN or infinity
// give 0.5. The result is always a finite number in [0, 1].
Parsed<double> parse_score(std::string_view reply);

}  // namespace kaisha::halo
