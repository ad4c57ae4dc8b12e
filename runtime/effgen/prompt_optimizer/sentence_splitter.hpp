// Sentence segmentation for the prompt optimizer. Every stage that works on
// sentences (simplification, redundancy removal, bullets, truncation) uses
// this one splitter, so they agree on what a sentence is.
//
// A sentence ends
//   - at '.', '!' or '?' (a run of them, plus closing quotes or brackets)
//     followed by whitespace or the end of the text, except that a '.' does
//     not end a sentence after a known abbreviation ("e.g.", "Dr.", "U.S."),
//     after a list number at the start of a line ("1. "), or when the next
//     word starts with a lowercase letter (an unknown abbreviation is far
//     more likely than a sentence starting in lowercase);
//   - at a line break, unless the next line starts with a lowercase letter
//     and the line does not end with ':' (a hard-wrapped paragraph).
// Decimals ("3.14"), versions and URLs never end a sentence: their '.' is
// not followed by whitespace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kaisha::prompt {

// One sentence and the whitespace that follows it. Concatenating text + gap
// of every piece returned by split_sentences() gives back the input exactly.
// Leading whitespace of the input becomes a piece with empty text.
struct SentencePiece {
  std::string_view text;
  std::string_view gap;
};

std::vector<SentencePiece> split_sentences(std::string_view text);

// Convenience for tests and callers that only want the sentences.
std::vector<std::string> sentences_of(std::string_view text);

// Whitespace-separated words of `text`.
std::vector<std::string_view> words_of(std::string_view text);

// True when `gap` contains a blank line (a paragraph break).
bool is_paragraph_break(std::string_view gap);

}  // namespace kaisha::prompt
