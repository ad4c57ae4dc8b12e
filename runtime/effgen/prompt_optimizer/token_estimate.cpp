#include "runtime/effgen/prompt_optimizer/token_estimate.hpp"

#include "runtime/core/ascii_space.hpp"

namespace kaisha::prompt {

TextSize measure(std::string_view text) {
  TextSize s;
  bool in_word = false;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++s.chars;
    bool space = ascii_space(c);
    if (!space && !in_word) ++s.words;
    in_word = !space;
  }
  return s;
}

double estimate_tokens(const TextSize& size, TokenEstimateMode mode) {
  double sum = static_cast<double>(size.chars) / 4.0 + 1.3 * static_cast<double>(size.words);
  return mode == TokenEstimateMode::literal_sum ? sum : sum / 2.0;
}

double estimate_tokens(std::string_view text, TokenEstimateMode mode) { return estimate_tokens(measure(text), mode); }

}  // namespace kaisha::prompt
