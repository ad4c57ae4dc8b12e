// Case-insensitive, whole-word phrase search and replacement, hand-written
// rather than std::regex: the optimizer runs on every small-model call and
// std::regex is slow to build and to run. Used by τ1 (compression) and τ3
// (politeness removal).
#pragma once

#include <string>
#include <string_view>

namespace kaisha::prompt {

// Where `phrase` occurs in `text` at or after `from`, or npos. ASCII letters
// match regardless of case; an ASCII apostrophe in the phrase also matches
// the typographic one (’). Like regex \b, an end of the phrase that is a word
// character (letter, digit, '_') must not touch another word character in
// `text`; an end that is punctuation needs no boundary. `match_len` receives
// the length of the match in `text` (it differs from the phrase's length
// when a ’ matched).
size_t find_phrase(std::string_view text, std::string_view phrase, size_t from, size_t* match_len);

// Replaces every non-overlapping occurrence of `phrase` in `text`, left to
// right, and returns how many there were. Replacement text is not searched
// again.
//  - When the match starts with an uppercase letter and the replacement
//    starts with a lowercase one, the replacement is capitalized
//    ("In order to" → "To").
//  - An empty replacement removes the phrase together with a comma right
//    after it and the spaces that follow ("In my opinion, it works" → "It
//    works"), and capitalizes the next letter when the phrase stood at the
//    start of a sentence.
int replace_phrase(std::string& text, std::string_view phrase, std::string_view replacement);

}  // namespace kaisha::prompt
