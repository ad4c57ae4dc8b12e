#include "runtime/eval/run_comparison.hpp"

#include <set>
#include <vector>

namespace kaisha::eval {

RunComparison compare_runs(const ScoredAnswers& candidate, const ScoredAnswers& baseline) {
  RunComparison out;
  std::vector<ItemOutcome> mine, theirs;
  std::vector<bool> mine_right, theirs_right;
  // Per repetition: [0] candidate's outcomes, [1] the baseline's.
  std::map<int, std::vector<ItemOutcome>> by_rep_mine, by_rep_theirs;
  std::set<std::string> keys;
  for (const auto& [k, r] : candidate) keys.insert(k);
  for (const auto& [k, r] : baseline) keys.insert(k);
  for (const std::string& k : keys) {
    auto a = candidate.find(k);
    auto b = baseline.find(k);
    if (a == candidate.end() || b == baseline.end() || !a->second.correct || !b->second.correct) {
      ++out.unpaired;
      continue;
    }
    ++out.paired;
    mine.push_back(a->second.outcome());
    theirs.push_back(b->second.outcome());
    mine_right.push_back(*a->second.correct);
    theirs_right.push_back(*b->second.correct);
    by_rep_mine[a->second.repetition].push_back(a->second.outcome());
    by_rep_theirs[a->second.repetition].push_back(b->second.outcome());
  }
  out.candidate = summarize(mine);
  out.baseline = summarize(theirs);
  out.test = mcnemar_paired(mine_right, theirs_right);
  if (by_rep_mine.size() >= 2) {
    std::vector<double> acc_mine, acc_theirs;
    for (const auto& [rep, outcomes] : by_rep_mine) {
      acc_mine.push_back(summarize(outcomes).accuracy);
      acc_theirs.push_back(summarize(by_rep_theirs[rep]).accuracy);
    }
    out.per_repetition = paired_t_test(acc_mine, acc_theirs);
  }
  return out;
}

}  // namespace kaisha::eval
