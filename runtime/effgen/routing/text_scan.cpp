#include "runtime/effgen/routing/text_scan.hpp"

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/ascii_space.hpp"

namespace kaisha::routing {

namespace {

bool is_word_byte(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80; }

}  // namespace

void scan_text(std::string_view text, ScannedText& out) {
  out.lowered.resize(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) out.lowered[i] = ascii_lower(text[i]);
  out.words.clear();
  out.word_count = 0;

  const std::string& s = out.lowered;
  const std::size_t n = s.size();
  bool gap_only_joiners = false;  // since the previous word, only spaces/hyphens
  bool chunk_has_word = false;    // the current whitespace chunk has a letter/digit
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (is_word_byte(c)) {
      std::size_t start = i;
      while (i < n && is_word_byte(static_cast<unsigned char>(s[i]))) ++i;
      out.words.push_back({std::string_view(s).substr(start, i - start), !out.words.empty() && gap_only_joiners});
      gap_only_joiners = true;
      chunk_has_word = true;
      continue;
    }
    if (ascii_space(c)) {
      if (chunk_has_word) ++out.word_count;
      chunk_has_word = false;
    } else if (c != '-') {
      gap_only_joiners = false;
    }
    ++i;
  }
  if (chunk_has_word) ++out.word_count;
}

std::vector<std::string> phrase_words(std::string_view phrase) {
  ScannedText scanned;
  scan_text(phrase, scanned);
  std::vector<std::string> words;
  words.reserve(scanned.words.size());
  for (const auto& w : scanned.words) words.emplace_back(w.text);
  return words;
}

}  // namespace kaisha::routing
