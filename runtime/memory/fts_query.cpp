#include "runtime/memory/fts_query.hpp"

#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::memory {

std::string fts_match_expression(const std::string& text, const std::set<std::string>& stopwords, int max_terms) {
  std::set<std::string> seen;
  std::string out, word;
  auto flush = [&] {
    if (word.size() >= 2 && !stopwords.count(word) && static_cast<int>(seen.size()) < max_terms &&
        seen.insert(word).second)
      out += (out.empty() ? "\"" : " OR \"") + word + "\"";
    word.clear();
  };
  for (unsigned char c : text) {
    // Bytes >= 0x80 belong to UTF-8 letters: keep them inside words.
    if (std::isalnum(c) || c >= 0x80)
      word += ascii_lower(static_cast<char>(c));
    else
      flush();
  }
  flush();
  return out;
}

}  // namespace kaisha::memory
