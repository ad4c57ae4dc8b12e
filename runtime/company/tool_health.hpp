// ToolHealth: how each tool has been doing, and its circuit breaker
// (effgen.md §9.4: "5 failures -> open for 60 s -> 1 half-open request").
//
// Per tool: calls, failures, consecutive failures, mean latency, and a
// health score = success rate · (1 − mean latency / timeout) (the success
// rate alone when no timeout is known), in [0, 1].
//
// The breaker: `failures_to_open` failures in a row open it, and for
// `cooldown_ms` every call is refused at once (admit() says so, with the
// time left). Then it is half-open: `half_open_calls` calls go through as
// probes while others are still refused; a probe that succeeds closes it, one
// that fails opens it again for another cool-down. Failures of class
// invalid_input are the caller's and are not recorded.
//
// Times are the caller's monotonic milliseconds (steady_ms()), so a test
// moves the clock itself. Thread-safe: one is shared by every actor of a
// company that calls tools. Bounded: beyond `max_tools` tools the one used
// least recently is forgotten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::company {

struct ToolBreakerSettings {
  int failures_to_open = 5;  // 0 = never open
  int64_t cooldown_ms = 60000;
  int half_open_calls = 1;
  std::size_t max_tools = 4096;
};

enum class BreakerState { closed, open, half_open };
std::string_view breaker_state_name(BreakerState s);  // "closed", "open", "half_open"

// What admit() decided.
struct ToolAdmission {
  bool allowed = true;
  BreakerState state = BreakerState::closed;
  int64_t retry_in_ms = 0;           // refused: the cool-down left
  int consecutive_failures = 0;      // when it opened
  std::optional<BreakerState> from;  // set when this call changed the state (open -> half_open)
};

// A change of a breaker's state, for events.
struct BreakerChange {
  BreakerState from = BreakerState::closed;
  BreakerState to = BreakerState::closed;
  int consecutive_failures = 0;
  int64_t cooldown_ms = 0;  // to == open: how long it stays open
};

// The journal note of a breaker's change: {"breaker": tool, "from", "to",
// "consecutive_failures", "cooldown_ms" (when it opened)}.
json breaker_note(const std::string& tool, const BreakerChange& c);
// One line for a person: "Tool `fetch` paused after 5 failures in a row
// (circuit breaker open for 60 s)", "... on trial (circuit breaker
// half-open)", "... works again (circuit breaker closed)".
std::string breaker_text(const std::string& tool, const BreakerChange& c);

// The answer to a call its breaker refused (`a` not allowed): "Tool `X`
// was not run: it failed 5 times in a row and is paused (circuit breaker
// open); ..." with output {"breaker": state, "retry_in_ms"}, of class
// permanent (not retried: the breaker says when to try again).
ToolResult breaker_refusal(const std::string& tool, const ToolAdmission& a);

// The health score: success rate · (1 − mean latency / timeout), the
// success rate alone when no timeout is known; 1 for a tool never called.
double tool_health_score(int64_t calls, int64_t failures, double mean_latency_ms, int64_t timeout_ms);

struct ToolHealthView {
  int64_t calls = 0;
  int64_t failures = 0;
  int consecutive_failures = 0;
  double mean_latency_ms = 0;
  double health = 1;  // 1 for a tool never called
  BreakerState state = BreakerState::closed;

  json to_json() const;
};

class ToolHealth {
 public:
  explicit ToolHealth(ToolBreakerSettings settings = {});

  // Whether a call of `tool` may start at `now_ms`. An allowed half-open
  // call is a probe: its record() decides the breaker.
  ToolAdmission admit(const std::string& tool, int64_t now_ms);
  // A call admitted earlier ended: `failed` (an error of a class other than
  // invalid_input), after `latency_ms`; `timeout_ms` is the tool's declared
  // timeout (0: none). Returns the breaker's change, if any.
  std::optional<BreakerChange> record(const std::string& tool, bool failed, int64_t latency_ms, int64_t now_ms,
                                      int64_t timeout_ms = 0);

  // A call admitted earlier did not run after all (refused by the budget),
  // or failed for the caller's fault (invalid_input): a half-open probe's
  // place is given back; nothing is recorded.
  void not_run(const std::string& tool);

  ToolHealthView view(const std::string& tool) const;
  // {"<tool>": view, ...}
  json to_json() const;
  const ToolBreakerSettings& settings() const { return settings_; }

 private:
  struct Entry {
    int64_t calls = 0, failures = 0;
    int consecutive = 0;
    double latency_sum_ms = 0;
    int64_t timeout_ms = 0;
    BreakerState state = BreakerState::closed;
    int64_t open_until_ms = 0;
    int probes = 0;  // half-open calls in flight
    uint64_t last_use = 0;
  };
  Entry& touch(const std::string& tool);  // mu_ held
  ToolHealthView view_of(const Entry& e) const;

  const ToolBreakerSettings settings_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> tools_;
  uint64_t uses_ = 0;
};

}  // namespace kaisha::company
