// Word-level view of a query for the complexity analyzer: one pass that
// lower-cases the text and finds its words, so that every keyword table and
// counter works on the same notion of "word" (effGen App. E: "case-insensitive,
// word boundary matching").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kaisha::routing {

// A word is a maximal run of ASCII letters, digits or non-ASCII bytes (so a
// UTF-8 letter never splits a word). `joined` is true when only spaces, tabs,
// newlines or hyphens separate it from the previous word: a multi-word phrase
// matches only across such gaps ("text file", "text-file", not "text, file").
struct ScannedWord {
  std::string_view text;  // lower-case; points into ScannedText::lowered
  bool joined = false;
};

// The scanned query. Not copyable: `words` point into `lowered`.
struct ScannedText {
  ScannedText() = default;
  ScannedText(const ScannedText&) = delete;
  ScannedText& operator=(const ScannedText&) = delete;

  std::string lowered;             // ASCII-lower-cased copy of the query
  std::vector<ScannedWord> words;  // in order
  // |q|_w of Eq. 13: whitespace-separated chunks holding at least one letter
  // or digit ("$899" and "8%" count, a lone "-" bullet marker does not).
  std::size_t word_count = 0;
};

// Fills `out` (reusing its buffers) from `text`.
void scan_text(std::string_view text, ScannedText& out);

// The lower-case words of a keyword phrase, by the same rule as scan_text
// ("Find Online" -> {"find", "online"}). Empty when it has no word.
std::vector<std::string> phrase_words(std::string_view phrase);

}  // namespace kaisha::routing
