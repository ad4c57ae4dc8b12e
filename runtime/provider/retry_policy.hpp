// RetryPolicy: which failures of a provider call are worth another attempt,
// and how long to wait before it. Exponential backoff with "full jitter"
// (a uniformly random delay between 0 and the exponential bound), so that
// many clients refused at once do not come back at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>

#include "runtime/config/config.hpp"

namespace kaisha::provider {

class RetryPolicy {
 public:
  // Values below their minimum are raised to it: at least 1 attempt, delays
  // of at least 0 ms, max_delay_ms at least base_delay_ms, max_retry_after_ms
  // at least max_delay_ms.
  explicit RetryPolicy(const config::RetryConfig& cfg, uint64_t seed = std::random_device{}());

  // Total attempts allowed, including the first.
  int max_attempts() const { return max_attempts_; }

  // The wait before the next attempt after `failed_attempts` (>= 1) failures:
  // `retry_after` when the server sent one, at most max_retry_after_ms (the
  // server knows when it will take the request again: max_delay_ms does not
  // cut it short); else uniform in [0, base_delay_ms * multiplier^(failed_attempts-1)],
  // at most max_delay_ms. Thread-safe.
  std::chrono::milliseconds backoff(int failed_attempts,
                                    std::optional<std::chrono::milliseconds> retry_after = std::nullopt);

  // 408 Request Timeout, 409 Conflict, 429 Too Many Requests and every 5xx:
  // statuses where the same request may succeed later. Other 4xx mean the
  // request itself is wrong and repeating it cannot help.
  static bool retryable_status(int status);

 private:
  int max_attempts_;
  int64_t base_ms_;
  int64_t max_ms_;
  int64_t max_retry_after_ms_;
  double multiplier_;
  std::mutex mu_;
  std::mt19937_64 rng_;
};

}  // namespace kaisha::provider
