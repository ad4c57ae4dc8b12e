#include "runtime/answers/token_f1.hpp"

#include <string_view>
#include <unordered_map>

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::answers {

namespace {

bool ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

bool article(std::string_view w) { return w == "a" || w == "an" || w == "the"; }

}  // namespace

std::vector<std::string> answer_tokens(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text)
    if (!ascii_punctuation(c)) clean += ascii_lower(c);
  std::vector<std::string> out;
  size_t i = 0;
  while (i < clean.size()) {
    while (i < clean.size() && is_space(clean[i])) ++i;
    size_t start = i;
    while (i < clean.size() && !is_space(clean[i])) ++i;
    std::string_view word(clean.data() + start, i - start);
    if (!word.empty() && !article(word)) out.emplace_back(word);
  }
  return out;
}

bool normalized_exact_match(std::string_view answer, std::string_view reference) {
  return answer_tokens(answer) == answer_tokens(reference);
}

double token_f1(std::string_view answer, std::string_view reference) {
  std::vector<std::string> got = answer_tokens(answer), want = answer_tokens(reference);
  if (got.empty() || want.empty()) return got.empty() && want.empty() ? 1.0 : 0.0;
  std::unordered_map<std::string_view, size_t> remaining;
  for (const std::string& w : want) ++remaining[w];
  size_t common = 0;
  for (const std::string& w : got) {
    auto it = remaining.find(w);
    if (it != remaining.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  if (common == 0) return 0.0;
  double precision = static_cast<double>(common) / static_cast<double>(got.size());
  double recall = static_cast<double>(common) / static_cast<double>(want.size());
  return 2 * precision * recall / (precision + recall);
}

}  // namespace kaisha::answers
