// The answer-parse agents' replies (halo.md §7, §8 item 11): after each
// subtask, the benchmark answer is read out of the subtask's answer, so that
// the consistency early stop compares like with like.
#pragma once

#include <string>
#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kAnswerKey = "answer";
inline constexpr std::string_view kDefaultMmluAnswer = "C";  // HALO's default choice

// Reads {"answer": "B"}: one letter A-D, trimmed, in any case (the value is
// upper-cased). Anything else is "C".
Parsed<std::string> parse_mmlu_answer(std::string_view reply);

struct MathAnswer {
  std::string latex;       // the formula out of its box, as written ("\dfrac12")
  std::string normalized;  // answers::normalize_latex of it ("\frac{1}{2}")
};

// Reads {"answer": "boxed{...}"} (also boxed$...$, \boxed{...}, \fbox{...}).
// A value without a box is used as it is, noted in `problem`. A value that
// normalises to nothing (blank, an empty box, "$$") or an unreadable reply is
// HALO's default boxed$0$: latex and normalized "0".
Parsed<MathAnswer> parse_math_answer(std::string_view reply);

}  // namespace kaisha::halo
