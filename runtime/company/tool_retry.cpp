#include "runtime/company/tool_retry.hpp"

#include <algorithm>

namespace kaisha::company {

int64_t ToolRetryPolicy::delay_before_retry(int attempt) const {
  int64_t d = std::max<int64_t>(0, backoff_ms);
  const int64_t cap = std::max<int64_t>(0, max_backoff_ms);
  for (int i = 1; i < attempt && d < cap; ++i) d *= 2;
  return std::min(d, cap);
}

std::optional<int64_t> ToolRetryPolicy::retry_after(ToolErrorClass c, bool repeatable, int attempt) const {
  if (c != ToolErrorClass::transient || !repeatable || attempt < 1 || attempt >= max_attempts) return std::nullopt;
  return delay_before_retry(attempt);
}

}  // namespace kaisha::company
