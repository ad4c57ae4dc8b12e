// What a strategy did on a suite, summed over its items: accuracy with its
// Wilson interval, tokens, dollars and time, and HiVA's cost efficiency.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/eval/wilson_interval.hpp"

namespace kaisha::eval {

// One scored answer.
struct ItemOutcome {
  std::optional<bool> correct;  // unset: the answer could not be judged
  int64_t tokens = 0;           // in + out, every model call of the task
  double usd = 0;
  int64_t ms = 0;  // the task's wall time
};

struct RunSummary {
  int items = 0;    // outcomes summed
  int judged = 0;   // of which had a verdict
  int correct = 0;  // of which were right
  // correct / judged (0 when nothing was judged), and its 95 % interval.
  double accuracy = 0;
  Interval interval;
  int64_t tokens = 0;
  double usd = 0;
  int64_t ms = 0;
  // CS = P × 100 / (C + 0.01), P the accuracy as a fraction and C the
  // dollars spent (HiVA's cost-efficiency score): 100 correct-percent per
  // dollar, the 0.01 keeping free runs finite.
  double cost_efficiency = 0;
};

// CS for accuracy `p` in [0, 1] at `usd` dollars.
double cost_efficiency(double p, double usd);

RunSummary summarize(const std::vector<ItemOutcome>& outcomes);

}  // namespace kaisha::eval
