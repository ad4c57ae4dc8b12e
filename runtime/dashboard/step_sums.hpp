// The org chart's numbers: each agent's tokens, dollars and step count over
// a session's journaled steps, summed by SQLite in one aggregate query, so
// that no step's payload is read or parsed. A read-only connection of its
// own, which the dashboard keeps open between requests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::store {
class SqliteDb;
}

namespace kaisha::dashboard {

struct AgentSum {
  std::string agent;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
  int64_t steps = 0;
};

class StepSums {
 public:
  static Result<std::unique_ptr<StepSums>> open_read_only(const std::string& path);
  ~StepSums();

  // Every agent that journaled a step in `session_id` (steps without an
  // agent left out), in the order of its first step.
  Result<std::vector<AgentSum>> of_session(const std::string& session_id);

 private:
  explicit StepSums(std::unique_ptr<store::SqliteDb> db);
  std::unique_ptr<store::SqliteDb> db_;
};

}  // namespace kaisha::dashboard
