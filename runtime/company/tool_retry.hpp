// ToolRetryPolicy: when a failed tool call is tried again, and after how
// long (effgen.md §9.4; tools.failures in the config). Only a transient
// error (tool_error_class.hpp) of a tool safe to run twice with the same
// arguments (ToolSource::repeatable: the rule `kaisha resume` follows) is
// retried, at most max_attempts calls in all, waiting backoff_ms, then
// twice that, ... capped at max_backoff_ms. Pure: the caller owns the clock
// and the wait (a tool loop asks for the retry as a delayed effect).
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/company/tool_error_class.hpp"

namespace kaisha::company {

struct ToolRetryPolicy {
  int max_attempts = 3;  // calls in all, the first included (1 = never retried)
  int64_t backoff_ms = 500;
  int64_t max_backoff_ms = 10000;

  // The wait before attempt `attempt` + 1 after attempt `attempt` (1-based)
  // failed with `c`; nullopt when it is not tried again.
  std::optional<int64_t> retry_after(ToolErrorClass c, bool repeatable, int attempt) const;
  // backoff_ms · 2^(attempt-1), capped.
  int64_t delay_before_retry(int attempt) const;
};

}  // namespace kaisha::company
