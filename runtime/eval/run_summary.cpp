#include "runtime/eval/run_summary.hpp"

namespace kaisha::eval {

double cost_efficiency(double p, double usd) { return p * 100.0 / (usd + 0.01); }

RunSummary summarize(const std::vector<ItemOutcome>& outcomes) {
  RunSummary s;
  for (const auto& o : outcomes) {
    ++s.items;
    if (o.correct) {
      ++s.judged;
      s.correct += *o.correct;
    }
    s.tokens += o.tokens;
    s.usd += o.usd;
    s.ms += o.ms;
  }
  s.accuracy = s.judged > 0 ? double(s.correct) / s.judged : 0.0;
  s.interval = wilson_interval(s.correct, s.judged);
  s.cost_efficiency = cost_efficiency(s.accuracy, s.usd);
  return s;
}

}  // namespace kaisha::eval
