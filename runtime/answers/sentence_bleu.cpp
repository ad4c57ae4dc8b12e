#include "runtime/answers/sentence_bleu.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "runtime/core/utf8.hpp"

namespace kaisha::answers {
namespace {

constexpr int kMaxOrder = 4;

bool is_unicode_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_cjk(char32_t c) {
  return (c >= 0x3001 && c <= 0x303F) || (c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF);
}

// 13a's punctuation class: always a token of its own.
bool is_split_punct(char32_t c) {
  static constexpr std::u32string_view kPunct = U"!\"#$%&()*+/:;<=>?@[\\]^_`{|}~";
  return c < 0x80 && kPunct.find(c) != std::u32string_view::npos;
}

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

// Token ids: n-grams are compared as small integer tuples.
using NGram = std::array<uint32_t, kMaxOrder>;

struct NGramHash {
  size_t operator()(const NGram& g) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t v : g) h = (h ^ v) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

using NGramCounts = std::array<std::unordered_map<NGram, uint32_t, NGramHash>, kMaxOrder>;

std::vector<uint32_t> to_ids(const std::vector<std::string_view>& tokens,
                             std::unordered_map<std::string_view, uint32_t>& ids) {
  std::vector<uint32_t> out;
  out.reserve(tokens.size());
  for (std::string_view t : tokens) out.push_back(ids.emplace(t, static_cast<uint32_t>(ids.size() + 1)).first->second);
  return out;
}

NGramCounts count_ngrams(const std::vector<uint32_t>& ids) {
  NGramCounts counts;
  for (int n = 1; n <= kMaxOrder; ++n) {
    for (size_t i = 0; i + n <= ids.size(); ++i) {
      NGram g{};  // 0 pads: no token has id 0
      for (int k = 0; k < n; ++k) g[k] = ids[i + k];
      ++counts[n - 1][g];
    }
  }
  return counts;
}

}  // namespace

std::vector<std::string_view> bleu_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = std::string_view::npos;  // where the word being read begins
  auto end_word = [&](size_t at) {
    if (start != std::string_view::npos) tokens.push_back(text.substr(start, at - start));
    start = std::string_view::npos;
  };
  char32_t previous = 0;  // the code point before the current one (0 at the start)
  for (size_t i = 0; i < text.size();) {
    utf8::Decoded d = utf8::decode(text.substr(i));
    char32_t c = d.ok ? d.code_point : utf8::kReplacement;
    size_t next = i + d.length;
    bool alone = false;
    if (is_unicode_space(c)) {
      end_word(i);
    } else if (is_cjk(c) || is_split_punct(c)) {
      alone = true;
    } else if (c == '.' || c == ',') {
      bool between_digits =
          is_digit(previous) && next < text.size() && is_digit(static_cast<unsigned char>(text[next]));
      alone = !between_digits;
    } else if (c == '-') {
      alone = is_digit(previous);
    }
    if (alone) {
      end_word(i);
      tokens.push_back(text.substr(i, d.length));
    } else if (!is_unicode_space(c) && start == std::string_view::npos) {
      start = i;
    }
    previous = c;
    i = next;
  }
  end_word(text.size());
  return tokens;
}

double sentence_bleu(std::string_view hypothesis, std::string_view reference) {
  std::unordered_map<std::string_view, uint32_t> ids;
  std::vector<uint32_t> hyp = to_ids(bleu_tokens(hypothesis), ids);
  std::vector<uint32_t> ref = to_ids(bleu_tokens(reference), ids);
  NGramCounts hyp_counts = count_ngrams(hyp);
  NGramCounts ref_counts = count_ngrams(ref);

  std::array<double, kMaxOrder> correct{}, total{};
  bool any_match = false;
  for (int n = 0; n < kMaxOrder; ++n) {
    total[n] = hyp.size() > static_cast<size_t>(n) ? static_cast<double>(hyp.size() - n) : 0.0;
    for (const auto& [gram, count] : hyp_counts[n]) {
      auto in_ref = ref_counts[n].find(gram);
      if (in_ref != ref_counts[n].end()) correct[n] += std::min(count, in_ref->second);
    }
    any_match = any_match || correct[n] > 0;
  }
  if (!any_match) return 0.0;

  const double c = static_cast<double>(hyp.size()), r = static_cast<double>(ref.size());
  const double brevity = c < r ? std::exp(1.0 - r / c) : 1.0;  // c > 0: something matched
  double log_sum = 0.0, smooth = 1.0;
  int order = 0;
  for (int n = 0; n < kMaxOrder && total[n] > 0; ++n) {
    order = n + 1;
    double precision;
    if (correct[n] == 0) {
      smooth *= 2;
      precision = 100.0 / (smooth * total[n]);
    } else {
      precision = 100.0 * correct[n] / total[n];
    }
    log_sum += std::log(precision);
  }
  return brevity * std::exp(log_sum / order);
}

bool bleu_match(std::string_view a, std::string_view b, double threshold) {
  if (a == b) return true;
  return std::max(sentence_bleu(a, b), sentence_bleu(b, a)) >= threshold;
}

}  // namespace kaisha::answers
