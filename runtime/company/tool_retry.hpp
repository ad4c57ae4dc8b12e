// ToolRetryPolicy: when a failed tool call is tried again, and after how
// long (effgen.md §9.4; tools.failures in the config). Only a transient
// error (tool_error_class.hpp) of a tool safe to run twice with the same
// arguments (ToolSource::repeatable: the rule `kaisha resume` follows) is
// retried, at most max_attempts calls in all, waiting backoff_ms, then
// twice that, ... capped at max_backoff_ms, each wait shortened by a jitter
// so that callers failing together do not retry together. Pure: the caller
// owns the clock and the wait (a tool loop asks for the retry as a delayed
// effect).
//
// The jitter is not random: it is drawn from a hash of the retry's key (the
// caller's name for the call: its task, agent and call id) and the attempt,
// so a resumed task asks for the very wait the first run asked for, and the
// journaled delay_ms reads the same in every run.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/company/tool_error_class.hpp"

namespace kaisha::company {

struct ToolRetryPolicy {
  int max_attempts = 3;  // calls in all, the first included (1 = never retried)
  int64_t backoff_ms = 500;
  int64_t max_backoff_ms = 10000;
  // The share of each wait that may be taken off: a wait is in
  // [backoff · (1 − jitter), backoff]. 0 = none; 1 = "full jitter".
  double jitter = 0.5;

  // The wait before attempt `attempt` + 1 after attempt `attempt` (1-based)
  // failed with `c`; nullopt when it is not tried again. `key` names the call.
  std::optional<int64_t> retry_after(ToolErrorClass c, bool repeatable, int attempt, std::string_view key) const;
  // backoff(attempt) less its jitter for (key, attempt).
  int64_t delay_before_retry(int attempt, std::string_view key) const;
  // backoff_ms · 2^(attempt-1), capped: the longest wait before the retry.
  int64_t backoff(int attempt) const;
};

// A number in [0, 1) that depends only on `key` and `attempt` (FNV-1a, then
// mixed): the same in every run, build and platform.
double retry_jitter_fraction(std::string_view key, int attempt);

}  // namespace kaisha::company
