// QualityScores: each pyramid agent's quality score Q (InfiAgent Eq. 5,
// infiagent.md §10 items 30–31), updated after every audited result:
//   Q <- alpha * Q + (1 - alpha) * v,   v = 1 for the judge's success, 0 for an error.
// Keyed by the agent's library name, which is stable across tasks (never a
// per-task name such as "Worker1"); an agent not yet audited has `initial`.
// The router breaks ties with it. Each agent keeps its latest verdicts with
// their times; the full history is in the journal. Scores seeded from the
// journal continue across runs, and changed() says which to save back.
// Not thread-safe: one strategy actor owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"

namespace kaisha::pyramid {

class QualityScores {
 public:
  // The verdicts each agent keeps in memory (older ones are in the journal).
  static constexpr size_t kHistory = 64;

  struct Record {
    int64_t at_ms = 0;  // when the verdict was given (the caller's clock)
    bool success = false;
    double q = 0;  // Q after it
  };
  struct Score {
    std::string agent;
    double q = 0;
    int64_t audits = 0;
  };

  explicit QualityScores(double alpha = 0.8, double initial = 0.5) : alpha_(alpha), initial_(initial) {}

  // Records one verdict for `agent` given at `at_ms`; returns its new Q.
  double update(const std::string& agent, bool success, int64_t at_ms = 0);
  // Starts `agent` from a stored score (a run before this one).
  void seed(const std::string& agent, double q, int64_t audits);
  double of(const std::string& agent) const;
  // The agents scored so far, with their Q.
  const std::map<std::string, double>& all() const { return scores_; }
  // `agent`'s latest verdicts, oldest first (at most kHistory).
  const std::deque<Record>& history(const std::string& agent) const;
  // The scores updated since the last call, to be saved.
  std::vector<Score> changed();
  // {"agent": {"q": .., "audits": n}, ...}
  json to_json() const;

 private:
  double alpha_;
  double initial_;
  std::map<std::string, double> scores_;
  std::map<std::string, int64_t> audits_;
  std::map<std::string, std::deque<Record>> history_;
  std::vector<std::string> changed_;
};

}  // namespace kaisha::pyramid
