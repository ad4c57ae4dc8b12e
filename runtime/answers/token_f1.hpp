// Token overlap of a short answer with its reference (SQuAD / HotpotQA's
// answer metrics, written from their documented definition).
//
// Both texts are normalised: ASCII lower case; every ASCII punctuation
// character (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~) removed; the words "a",
// "an" and "the" removed; split on ASCII whitespace. Letters outside ASCII
// are kept as they are (no Unicode case folding).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kaisha::answers {

// The normalised tokens of `text`.
std::vector<std::string> answer_tokens(std::string_view text);

// The normalised tokens of both are equal (same words, same order).
bool normalized_exact_match(std::string_view answer, std::string_view reference);

// F1 of the two token multisets, in [0, 1]: with `common` the size of their
// intersection, precision = common / |answer|, recall = common /
// |reference|, F1 = 2PR / (P + R), 0 when nothing is shared. When either
// side has no token at all, 1 if both have none, else 0.
double token_f1(std::string_view answer, std::string_view reference);

}  // namespace kaisha::answers
