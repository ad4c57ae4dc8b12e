// ToolHealthJournal: each tool's health and circuit breaker as a session's
// journal tells them (`kaisha tools`), for a reader that is not the running
// company: its ToolHealth lives in memory, the journal keeps what it saw.
//
// Fed the session's steps in journal order, it counts per tool the calls
// that ran (a tool_result step; one refused by an open breaker is counted
// apart as `refused`, one of class invalid_input not at all, as ToolHealth
// does), their failures, the failures in a row at the end, the mean latency
// (from the tool_call step to its tool_result, matched by agent and call
// id) and the timeout the tool declared (tool_call metadata), and scores
// them with ToolHealth's formula. The breaker is as its last journaled
// change (a `breaker` note) left it, with when that was; a company started
// again starts with every breaker closed, which the caller may say.
// The CEO's management tools (AgentCreator, AskAgent, ...) have no health:
// they are skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/company/tool_health.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::company {

// What the report needs of a journal step (store::StepRow has more).
struct JournaledStep {
  std::string agent;
  std::string kind;  // tool_call | tool_result | note (others are ignored)
  json payload;
  int64_t at_ms = 0;  // when it was journaled (wall clock)
};

struct ToolHealthRow {
  std::string tool;
  ToolHealthView view;  // calls, failures, latency, health; state = the breaker's last journaled state
  int64_t refused = 0;  // calls its open breaker refused without running them
  int64_t last_call_ms = 0;
  // The breaker's last journaled change: when, and for how long it opened.
  std::optional<int64_t> breaker_changed_ms;
  int64_t cooldown_ms = 0;

  json to_json() const;
};

class ToolHealthJournal {
 public:
  void add(const JournaledStep& step);
  // One row per tool, by name.
  std::vector<ToolHealthRow> rows() const;

 private:
  struct Tool {
    int64_t calls = 0, failures = 0, refused = 0;
    int consecutive = 0;
    double latency_sum_ms = 0;
    int64_t timed = 0;  // calls whose tool_call step was found: the latency's count
    int64_t timeout_ms = 0;
    int64_t last_call_ms = 0;
    BreakerState state = BreakerState::closed;
    std::optional<int64_t> changed_ms;
    int64_t cooldown_ms = 0;
  };
  std::map<std::string, Tool> tools_;
  std::map<std::pair<std::string, std::string>, int64_t> started_;  // (agent, call id) -> tool_call's time
};

}  // namespace kaisha::company
