// Token estimation without a tokenizer (paper §3.1 / effgen.md §2.5): the
// average of two rules of thumb, chars/4 and 1.3 tokens per word. The paper
// writes the formula as a sum but calls it an average; the average is the
// default (effgen.md §21.14) and the sum stays available as a paper-literal
// mode. The result is a double so that golden values ("hello world" →
// 2.675) can be checked exactly; callers round as they see fit.
#pragma once

#include <cstdint>
#include <string_view>

namespace kaisha::prompt {

enum class TokenEstimateMode {
  average,      // (chars/4 + 1.3·words) / 2 — default, as the public repo
  literal_sum,  // chars/4 + 1.3·words — the formula as printed
};

// The two measures the estimate is built from. They add up over pieces of
// text that are joined by whitespace, so a prompt's estimate can be kept
// up to date while parts are dropped, without re-reading it.
struct TextSize {
  int64_t chars = 0;  // Unicode code points (UTF-8 continuation bytes are not counted)
  int64_t words = 0;  // runs of non-whitespace

  TextSize& operator+=(const TextSize& o) {
    chars += o.chars;
    words += o.words;
    return *this;
  }
  TextSize& operator-=(const TextSize& o) {
    chars -= o.chars;
    words -= o.words;
    return *this;
  }
};

TextSize measure(std::string_view text);

double estimate_tokens(const TextSize& size, TokenEstimateMode mode = TokenEstimateMode::average);
double estimate_tokens(std::string_view text, TokenEstimateMode mode = TokenEstimateMode::average);

}  // namespace kaisha::prompt
