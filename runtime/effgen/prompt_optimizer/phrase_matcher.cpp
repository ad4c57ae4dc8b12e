#include "runtime/effgen/prompt_optimizer/phrase_matcher.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::prompt {

namespace {

constexpr std::string_view kCurlyApostrophe = "\xE2\x80\x99";

bool is_word(unsigned char c) { return std::isalnum(c) != 0 || c == '_' || c >= 0x80; }
// ASCII only, without a locale lookup: this runs once per character per pattern.
// Length of the match of `phrase` at `pos`, or 0.
size_t match_at(std::string_view text, size_t pos, std::string_view phrase) {
  size_t t = pos;
  for (char p : phrase) {
    if (t >= text.size()) return 0;
    if (p == '\'' && text.substr(t, kCurlyApostrophe.size()) == kCurlyApostrophe) {
      t += kCurlyApostrophe.size();
      continue;
    }
    if (ascii_lower(text[t]) != ascii_lower(p)) return 0;
    ++t;
  }
  return t - pos;
}

// Is `pos` where a sentence starts: the start of the text or of a line, or
// after sentence punctuation, ignoring spaces and list markers?
bool sentence_start(std::string_view text, size_t pos) {
  size_t i = pos;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  if (i >= 2 && (text[i - 1] == '-' || text[i - 1] == '*') && text[i - 2] == '\n') return true;
  if (i == 1 && (text[0] == '-' || text[0] == '*')) return true;
  if (i == 0) return true;
  char c = text[i - 1];
  return c == '\n' || c == '.' || c == '!' || c == '?' || c == ':';
}

}  // namespace

size_t find_phrase(std::string_view text, std::string_view phrase, size_t from, size_t* match_len) {
  // Every character of the phrase takes at least one byte of the text, so a
  // text shorter than the phrase holds no match (most phrases against the
  // short parts of a worker prompt: no scan at all).
  if (phrase.empty() || from > text.size() || text.size() - from < phrase.size()) return std::string_view::npos;
  bool word_head = is_word(static_cast<unsigned char>(phrase.front()));
  bool word_tail = is_word(static_cast<unsigned char>(phrase.back()));
  const char first = ascii_lower(phrase.front());
  const char first_upper = (first >= 'a' && first <= 'z') ? static_cast<char>(first - ('a' - 'A')) : first;
  // Candidates are found with memchr (string_view::find), one cursor per
  // case of the first character: much faster than testing every position.
  size_t next_lower = text.find(first, from);
  size_t next_upper = first_upper == first ? std::string_view::npos : text.find(first_upper, from);
  while (next_lower != std::string_view::npos || next_upper != std::string_view::npos) {
    const size_t pos = std::min(next_lower, next_upper);
    if (pos == next_lower)
      next_lower = text.find(first, pos + 1);
    else
      next_upper = text.find(first_upper, pos + 1);
    if (word_head && pos > 0 && is_word(static_cast<unsigned char>(text[pos - 1]))) continue;
    size_t len = match_at(text, pos, phrase);
    if (len == 0) continue;
    if (word_tail && pos + len < text.size() && is_word(static_cast<unsigned char>(text[pos + len]))) continue;
    if (match_len) *match_len = len;
    return pos;
  }
  return std::string_view::npos;
}

int replace_phrase(std::string& text, std::string_view phrase, std::string_view replacement) {
  int count = 0;
  size_t from = 0;
  size_t len = 0;
  for (;;) {
    size_t pos = find_phrase(text, phrase, from, &len);
    if (pos == std::string::npos) break;
    ++count;
    bool capital = std::isupper(static_cast<unsigned char>(text[pos])) != 0;
    if (replacement.empty()) {
      bool at_start = sentence_start(text, pos);
      size_t end = pos + len;
      if (end < text.size() && text[end] == ',') ++end;  // "In my opinion, it works"
      while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
      bool word_follows = end < text.size() && text[end] != '\n' && text[end] != '.' && text[end] != '!' &&
                          text[end] != '?' && text[end] != ',';
      if (!word_follows && at_start && end < text.size() && (text[end] == '.' || text[end] == '!')) {
        // The phrase was the whole sentence ("Thank you."): take its
        // punctuation and the space in front of it.
        ++end;
        if (pos == 0 || text[pos - 1] == '\n') {
          while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
        } else {
          while (pos > 0 && (text[pos - 1] == ' ' || text[pos - 1] == '\t')) --pos;
        }
      } else if (!word_follows) {
        // The phrase closed a clause ("Do it, if possible."): take the
        // space and comma in front of it instead.
        while (pos > 0 && (text[pos - 1] == ' ' || text[pos - 1] == '\t')) --pos;
        if (pos > 0 && text[pos - 1] == ',') --pos;
      }
      text.erase(pos, end - pos);
      if (at_start && word_follows && pos < text.size())
        text[pos] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[pos])));
      from = pos;
      continue;
    }
    std::string rep(replacement);
    if (capital && std::islower(static_cast<unsigned char>(rep[0])))
      rep[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(rep[0])));
    text.replace(pos, len, rep);
    from = pos + rep.size();
  }
  return count;
}

}  // namespace kaisha::prompt
