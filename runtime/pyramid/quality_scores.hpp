// QualityScores: each pyramid agent's quality score Q (InfiAgent Eq. 5,
// infiagent.md §10 items 30–31), updated after every audited result:
//   Q <- alpha * Q + (1 - alpha) * v,   v = 1 for the judge's success, 0 for an error.
// Keyed by the agent's library name, which is stable across tasks (never a
// per-task name such as "Worker1"); an agent not yet audited has `initial`.
// The router breaks ties with it. Not thread-safe: one strategy actor owns it.
#pragma once

#include <map>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::pyramid {

class QualityScores {
 public:
  explicit QualityScores(double alpha = 0.8, double initial = 0.5) : alpha_(alpha), initial_(initial) {}

  // Records one verdict for `agent`; returns its new Q.
  double update(const std::string& agent, bool success);
  double of(const std::string& agent) const;
  // The agents audited so far, with their Q.
  const std::map<std::string, double>& all() const { return scores_; }
  // {"agent": {"q": .., "audits": n}, ...}
  json to_json() const;

 private:
  double alpha_;
  double initial_;
  std::map<std::string, double> scores_;
  std::map<std::string, int> audits_;
};

}  // namespace kaisha::pyramid
