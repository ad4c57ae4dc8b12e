// Turns arbitrary user text into an FTS5 MATCH expression that cannot be a
// syntax error: the text's words (letters and digits, lower-cased, at least
// two characters, at most `max_terms` distinct ones) each double-quoted and
// joined with OR. Words in `stopwords` (lower-case) are left out, so a
// lexical hit shares a content word. Returns "" when no word is left.
#pragma once

#include <set>
#include <string>

namespace kaisha::memory {

std::string fts_match_expression(const std::string& text, const std::set<std::string>& stopwords = {},
                                 int max_terms = 32);

}  // namespace kaisha::memory
