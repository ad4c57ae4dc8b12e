// The limits on spawning sub-agents (effgen.md §5 Algorithms 10–11, Table 29,
// §23 item 23), as pure functions the supervisor actor consults.
//
// Depth counts from the root agent at 0; its sub-agents are at depth 1. An
// agent at depth >= max_depth does not spawn: it executes the task itself.
// With the default max_depth 2 the tree is root → children → grandchildren,
// and the grandchildren work alone.
#pragma once

#include <chrono>
#include <cstddef>

#include "runtime/core/result.hpp"

namespace kaisha::planning {

struct SubAgentLimits {
  int max_depth = 2;                     // 1–5
  size_t max_concurrent = 5;             // 1–20
  double timeout_fraction = 0.5;         // 0.1–1.0 of the parent's timeout
  double max_iterations_fraction = 0.5;  // (0, 1] of the parent's max_iterations
  // Algorithm 11's literal rule, timeout = parent.timeout / n, instead of
  // Table 29's fraction (effgen.md §21 item 17 keeps both; fraction is default).
  bool divide_timeout_by_n = false;
};

// Error (code "config") naming the first field outside its range.
Status validate(const SubAgentLimits& limits);

// Whether an agent at `depth` may spawn sub-agents (Algorithm 10 step 2).
bool may_spawn(int depth, const SubAgentLimits& limits);

// How many of `n_subtasks` sub-agents may run at once: min(n, max_concurrent), at least 1.
size_t concurrency(size_t n_subtasks, const SubAgentLimits& limits);

struct AgentBudget {
  int max_iterations = 0;
  std::chrono::milliseconds timeout{0};
};

// A sub-agent's budget (Algorithm 11): max_iterations = floor(parent ·
// fraction) but at least 1, so a child can always answer once; timeout =
// parent · timeout_fraction, or parent / n_subtasks when
// divide_timeout_by_n (n of 0 is treated as 1).
AgentBudget child_budget(const AgentBudget& parent, size_t n_subtasks, const SubAgentLimits& limits);

}  // namespace kaisha::planning
