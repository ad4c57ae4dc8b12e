#include "runtime/hiva/routing/keywords.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::hiva {

namespace {

// Words that say nothing about a task or an agent's expertise; without them
// the Jaccard overlap of two prompts would be dominated by "the" and "you".
const std::set<std::string, std::less<>>& stopwords() {
  static const std::set<std::string, std::less<>> words = {
      "about", "after", "all",  "also", "an",    "and",  "any",   "are",   "as",    "at",    "be",    "been",
      "but",   "by",    "can",  "do",   "does",  "each", "for",   "from",  "given", "has",   "have",  "he",
      "her",   "his",   "how",  "if",   "in",    "into", "is",    "it",    "its",   "me",    "more",  "most",
      "my",    "no",    "not",  "of",   "on",    "one",  "or",    "other", "our",   "out",   "she",   "should",
      "so",    "some",  "such", "than", "that",  "the",  "their", "them",  "then",  "there", "these", "they",
      "this",  "to",    "up",   "us",   "very",  "was",  "we",    "were",  "what",  "when",  "where", "which",
      "while", "who",   "will", "with", "would", "you",  "your",  "yours"};
  return words;
}

bool ascii_word_char(char32_t cp) {
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
}

// Non-ASCII punctuation that would otherwise glue itself to a word:
// Latin-1 punctuation and signs, General Punctuation (dashes, quotes, …),
// CJK Symbols and Punctuation, fullwidth ASCII punctuation, U+FFFD.
bool non_ascii_separator(char32_t cp) {
  return (cp >= 0x80 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 || (cp >= 0x2000 && cp <= 0x206F) ||
         (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
         cp == utf8::kReplacement;
}

void keep(std::string word, bool has_non_ascii, std::set<std::string>& out) {
  if (word.empty()) return;
  if (!has_non_ascii && word.size() < 2) return;
  if (stopwords().count(word) != 0) return;
  out.insert(std::move(word));
}

void collect(std::string_view text, std::set<std::string>& out) {
  std::string word;
  bool has_non_ascii = false;
  while (!text.empty()) {
    const utf8::Decoded d = utf8::decode(text);
    const bool word_char =
        d.ok && (d.code_point < 0x80 ? ascii_word_char(d.code_point) : !non_ascii_separator(d.code_point));
    if (word_char) {
      if (d.code_point < 0x80) {
        word.push_back(ascii_lower(static_cast<char>(d.code_point)));
      } else {
        word.append(text.substr(0, d.length));
        has_non_ascii = true;
      }
    } else {
      keep(std::move(word), has_non_ascii, out);
      word.clear();
      has_non_ascii = false;
    }
    text.remove_prefix(d.length);
  }
  keep(std::move(word), has_non_ascii, out);
}

}  // namespace

std::vector<std::string> keywords_of(std::string_view text) {
  std::set<std::string> words;
  collect(text, words);
  return {words.begin(), words.end()};
}

std::vector<std::string> keywords_of_all(const std::vector<std::string>& texts) {
  std::set<std::string> words;
  for (const std::string& text : texts) collect(text, words);
  return {words.begin(), words.end()};
}

double jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  const size_t union_size = a.size() + b.size() - common.size();
  if (union_size == 0) return 0.0;
  return static_cast<double>(common.size()) / static_cast<double>(union_size);
}

bool intersects(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

}  // namespace kaisha::hiva
