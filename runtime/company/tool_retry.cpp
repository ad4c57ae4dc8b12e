#include "runtime/company/tool_retry.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/core/fnv1a.hpp"

namespace kaisha::company {

double retry_jitter_fraction(std::string_view key, int attempt) {
  uint64_t h = fnv1a_64(key);
  const std::string n = "#" + std::to_string(attempt);
  h = fnv1a_64(h, n);
  // SplitMix64's finaliser: FNV's low bits change little between close keys.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // 53 bits: exactly representable, < 1
}

int64_t ToolRetryPolicy::backoff(int attempt) const {
  int64_t d = std::max<int64_t>(0, backoff_ms);
  const int64_t cap = std::max<int64_t>(0, max_backoff_ms);
  for (int i = 1; i < attempt && d < cap; ++i) d *= 2;
  return std::min(d, cap);
}

int64_t ToolRetryPolicy::delay_before_retry(int attempt, std::string_view key) const {
  const int64_t full = backoff(attempt);
  const double share = std::clamp(jitter, 0.0, 1.0) * retry_jitter_fraction(key, attempt);
  const auto off = static_cast<int64_t>(std::floor(static_cast<double>(full) * share));
  return std::clamp<int64_t>(full - off, 0, full);
}

std::optional<int64_t> ToolRetryPolicy::retry_after(ToolErrorClass c, bool repeatable, int attempt,
                                                    std::string_view key) const {
  if (c != ToolErrorClass::transient || !repeatable || attempt < 1 || attempt >= max_attempts) return std::nullopt;
  return delay_before_retry(attempt, key);
}

}  // namespace kaisha::company
