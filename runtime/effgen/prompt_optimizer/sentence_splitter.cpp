#include "runtime/effgen/prompt_optimizer/sentence_splitter.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/ascii_space.hpp"

namespace kaisha::prompt {

namespace {

bool is_lower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Abbreviations whose '.' never ends a sentence.
constexpr std::array<std::string_view, 17> kAlwaysAbbrev = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "cf", "fig", "approx", "incl", "dept", "eg", "ie", "resp"};
// Abbreviations that end a sentence only when an uppercase word follows
// ("... and so on, etc. Then ...").
constexpr std::array<std::string_view, 5> kMaybeFinalAbbrev = {"etc", "al", "inc", "ltd", "co"};

// The word that ends with the '.' at `dot`, without leading brackets/quotes
// and without the final '.'.
std::string_view word_before(std::string_view text, size_t dot, size_t* word_start) {
  size_t i = dot;
  while (i > 0 && !ascii_space(text[i - 1])) --i;
  while (i < dot && (text[i] == '(' || text[i] == '[' || text[i] == '"' || text[i] == '\'')) ++i;
  *word_start = i;
  return text.substr(i, dot - i);
}

bool at_line_start(std::string_view text, size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i == 0 || text[i - 1] == '\n';
}

// Dotted initialisms: "e.g", "u.s", "a.m" (letters separated by dots).
bool is_initialism(std::string_view w) {
  if (w.size() < 3) return false;
  for (size_t i = 0; i < w.size(); ++i) {
    bool want_letter = i % 2 == 0;
    if (want_letter ? !is_alpha(w[i]) : w[i] != '.') return false;
  }
  return true;
}

// Does the '.' at `dot` end a sentence, given that `next` is the first
// non-space character after it (0 at the end of the text)?
bool period_ends_sentence(std::string_view text, size_t dot, char next) {
  if (next == 0) return true;
  if (is_lower(next)) return false;
  size_t start = 0;
  std::string w = ascii_lower(word_before(text, dot, &start));
  if (w.empty()) return true;
  if (is_initialism(w)) return false;
  if (std::find(kAlwaysAbbrev.begin(), kAlwaysAbbrev.end(), w) != kAlwaysAbbrev.end()) return false;
  if (std::find(kMaybeFinalAbbrev.begin(), kMaybeFinalAbbrev.end(), w) != kMaybeFinalAbbrev.end())
    return is_upper(next);
  if (w == "no" && is_digit(next)) return false;                                              // "No. 5"
  if (std::all_of(w.begin(), w.end(), is_digit) && at_line_start(text, start)) return false;  // "1. "
  return true;
}

bool is_closer(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }

// Length of a closing curly quote (” or ’) at i, else 0.
size_t curly_closer(std::string_view text, size_t i) {
  if (text.substr(i, 3) == "\xE2\x80\x9D" || text.substr(i, 3) == "\xE2\x80\x99") return 3;
  return 0;
}

}  // namespace

bool is_paragraph_break(std::string_view gap) { return std::count(gap.begin(), gap.end(), '\n') >= 2; }

std::vector<SentencePiece> split_sentences(std::string_view text) {
  std::vector<SentencePiece> out;
  size_t i = 0;
  size_t lead = 0;
  while (lead < text.size() && ascii_space(text[lead])) ++lead;
  if (lead > 0) out.push_back({text.substr(0, 0), text.substr(0, lead)});
  size_t start = lead;
  i = lead;
  auto emit = [&](size_t end) {  // sentence [start, end), then its gap
    size_t g = end;
    while (g < text.size() && ascii_space(text[g])) ++g;
    out.push_back({text.substr(start, end - start), text.substr(end, g - end)});
    start = i = g;
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '.' || c == '!' || c == '?') {
      size_t end = i + 1;
      while (end < text.size() && (text[end] == '.' || text[end] == '!' || text[end] == '?')) ++end;
      for (;;) {
        if (end < text.size() && is_closer(text[end])) {
          ++end;
          continue;
        }
        if (size_t n = end < text.size() ? curly_closer(text, end) : 0) {
          end += n;
          continue;
        }
        break;
      }
      if (end == text.size()) {
        emit(end);
        continue;
      }
      if (!ascii_space(text[end])) {
        i = end;
        continue;
      }
      size_t n = end;
      while (n < text.size() && ascii_space(text[n])) ++n;
      char next = n < text.size() ? text[n] : 0;
      bool ends = (c == '.' && end == i + 1) ? period_ends_sentence(text, i, next) : true;
      if (ends) {
        emit(end);
        continue;
      }
      i = end;
      continue;
    }
    if (c == '\n') {
      size_t end = i;
      while (end > start && ascii_space(text[end - 1])) --end;
      size_t n = i;
      while (n < text.size() && ascii_space(text[n])) ++n;
      bool blank = std::count(text.begin() + i, text.begin() + n, '\n') >= 2;
      bool wrapped = !blank && n < text.size() && is_lower(text[n]) && end > start && text[end - 1] != ':';
      if (!wrapped && end > start) {
        i = end;
        emit(end);
        continue;
      }
      i = n;
      continue;
    }
    ++i;
  }
  if (start < text.size()) {
    size_t end = text.size();
    while (end > start && ascii_space(text[end - 1])) --end;
    i = end;
    out.push_back({text.substr(start, end - start), text.substr(end)});
  }
  return out;
}

std::vector<std::string> sentences_of(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& p : split_sentences(text))
    if (!p.text.empty()) out.emplace_back(p.text);
  return out;
}

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && ascii_space(text[i])) ++i;
    size_t s = i;
    while (i < text.size() && !ascii_space(text[i])) ++i;
    if (i > s) out.push_back(text.substr(s, i - s));
  }
  return out;
}

}  // namespace kaisha::prompt
