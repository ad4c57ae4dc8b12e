// When two answers count as the same answer: the one choice HALO's early
// stop makes per task (exact for multiple choice, latex for MATH, bleu for
// code and open-ended text), shared with the evaluation harness.
#pragma once

#include <string_view>

#include "runtime/answers/latex_equivalence.hpp"
#include "runtime/answers/sentence_bleu.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::answers {

enum class Equivalence { exact, latex, bleu };

// "exact", "latex", "bleu".
std::string_view to_string(Equivalence e);

// A config word, ASCII case-insensitive. Error (code "config") naming the
// bad value and the choices, e.g.
//   answer equivalence "regex" is not one of: exact, latex, bleu
Result<Equivalence> parse_equivalence(std::string_view word);

// Byte equality after trimming surrounding ASCII whitespace (space, \t, \n,
// \v, \f, \r) from both: "B\n" and " B" match, "b" and "B" do not.
bool exact_match(std::string_view a, std::string_view b);

// exact_match, latex_equivalence or bleu_match (at `bleu_threshold`).
bool equivalent(Equivalence e, std::string_view a, std::string_view b, double bleu_threshold = kBleuMatchThreshold);

}  // namespace kaisha::answers
