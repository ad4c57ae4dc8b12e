#include "runtime/llm/model_tier.hpp"

#include <cctype>
#include <charconv>
#include <string>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::llm {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Reads a number "12" or "1.5" that ends just before `end`; returns its start
// or npos.
size_t number_start(std::string_view s, size_t end) {
  size_t i = end;
  while (i > 0 && (is_digit(s[i - 1]) || s[i - 1] == '.')) --i;
  while (i < end && s[i] == '.') ++i;  // "v.7b" → "7"
  return i < end ? i : std::string_view::npos;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

const char* to_string(ModelTier tier) {
  switch (tier) {
    case ModelTier::tiny:
      return "tiny";
    case ModelTier::small:
      return "small";
    case ModelTier::medium:
      return "medium";
    case ModelTier::large:
      return "large";
    case ModelTier::xl:
      return "xl";
  }
  return "medium";
}

Result<ModelTier> parse_model_tier(std::string_view text) {
  const std::string t = ascii_lower(text);
  for (ModelTier m : {ModelTier::tiny, ModelTier::small, ModelTier::medium, ModelTier::large, ModelTier::xl})
    if (t == to_string(m)) return m;
  if (t == "extra_large") return ModelTier::xl;
  return Error{"config", "unknown model size '" + std::string(text) + "' (expected tiny, small, medium, large or xl)"};
}

ModelTier tier_from_parameters(double billions, const TierBoundaries& b) {
  if (billions >= b.xl_from) return ModelTier::xl;
  if (billions >= b.large_from) return ModelTier::large;
  if (billions >= b.medium_from) return ModelTier::medium;
  if (billions >= b.small_from) return ModelTier::small;
  return ModelTier::tiny;
}

std::optional<double> parameters_from_model_name(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    char unit = ascii_lower(name[i]);
    if ((unit != 'b' && unit != 'm') || i == 0 || !is_digit(name[i - 1])) continue;
    if (i + 1 < name.size() && is_alnum(name[i + 1])) continue;  // "7bit", "3mini"
    size_t start = number_start(name, i);
    if (start == std::string_view::npos) continue;
    auto value = to_double(name.substr(start, i - start));
    if (!value) continue;
    double experts = 1;
    if (start > 0 && (name[start - 1] == 'x' || name[start - 1] == 'X')) {
      // "8x7b": the count of experts sits before the 'x'.
      size_t e = number_start(name, start - 1);
      if (e == std::string_view::npos || (e > 0 && is_alnum(name[e - 1]))) continue;
      experts = to_double(name.substr(e, start - 1 - e)).value_or(1);
    } else if (start > 0 && is_alnum(name[start - 1])) {
      continue;  // "qwen2.5b..." is part of a word, not a size
    }
    return *value * experts / (unit == 'm' ? 1000.0 : 1.0);
  }
  return std::nullopt;
}

ModelTier resolve_tier(const TierQuery& q, const TierBoundaries& b, ModelTier unknown) {
  if (q.explicit_tier) return *q.explicit_tier;
  if (q.parameters_b) return tier_from_parameters(*q.parameters_b, b);
  if (auto p = parameters_from_model_name(q.model_name)) return tier_from_parameters(*p, b);
  return unknown;
}

}  // namespace kaisha::llm
