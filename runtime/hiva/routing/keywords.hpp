// The words a text is about, for the keyword overlap of KABB's semantic
// mismatch (hiva.md §6.2, Ψ1): a sorted set of lower-cased words with the
// commonest English function words left out.
//
// A word is a maximal run of ASCII letters and digits or of non-ASCII code
// points that are not punctuation (General Punctuation, Latin-1 and CJK
// punctuation blocks, U+FFFD); everything else separates words. Only ASCII is
// lower-cased ("Algèbre" -> "algèbre"): kaisha has no Unicode case tables,
// and a word outside ASCII is kept whole, never cut inside a code point.
// ASCII words of one character are dropped (a single non-ASCII character,
// e.g. a CJK word, is kept).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kaisha::hiva {

// Sorted (by bytes), without duplicates.
std::vector<std::string> keywords_of(std::string_view text);

// keywords_of() of each text, merged.
std::vector<std::string> keywords_of_all(const std::vector<std::string>& texts);

// |a ∩ b| / |a ∪ b| of two sorted duplicate-free sets; 0 when both are
// empty (no evidence of overlap).
double jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b);

// Whether two sorted duplicate-free sets share an element.
bool intersects(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace kaisha::hiva
