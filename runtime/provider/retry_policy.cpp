#include "runtime/provider/retry_policy.hpp"

#include <algorithm>

namespace kaisha::provider {

RetryPolicy::RetryPolicy(const config::RetryConfig& cfg, uint64_t seed)
    : max_attempts_(std::max(1, cfg.max_attempts)),
      base_ms_(std::max<int64_t>(0, cfg.base_delay_ms)),
      max_ms_(std::max<int64_t>(std::max<int64_t>(0, cfg.base_delay_ms), cfg.max_delay_ms)),
      max_retry_after_ms_(std::max<int64_t>(max_ms_, cfg.max_retry_after_ms)),
      multiplier_(std::max(1.0, cfg.multiplier)),
      rng_(seed) {}

std::chrono::milliseconds RetryPolicy::backoff(int failed_attempts,
                                               std::optional<std::chrono::milliseconds> retry_after) {
  if (retry_after) return std::chrono::milliseconds(std::clamp<int64_t>(retry_after->count(), 0, max_retry_after_ms_));
  // base * multiplier^(n-1), computed without overflow: stop growing at the cap.
  double grown = static_cast<double>(base_ms_);
  for (int i = 1; i < failed_attempts && grown < static_cast<double>(max_ms_); ++i) grown *= multiplier_;
  const int64_t bound = std::min<int64_t>(static_cast<int64_t>(grown), max_ms_);
  std::lock_guard lk(mu_);
  std::uniform_int_distribution<int64_t> dist(0, bound);
  return std::chrono::milliseconds(dist(rng_));
}

bool RetryPolicy::retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

}  // namespace kaisha::provider
