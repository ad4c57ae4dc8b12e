// Two evaluation runs of one suite side by side (`kaisha eval --baseline
// RUN`): their answers paired by item and repetition, McNemar's test on the
// items both judged, and the papers' paired t-test on per-repetition
// accuracies when both answered every item more than once.
#pragma once

#include <map>
#include <string>

#include "runtime/eval/item_record.hpp"
#include "runtime/eval/mcnemar.hpp"
#include "runtime/eval/run_summary.hpp"
#include "runtime/eval/student_t.hpp"

namespace kaisha::eval {

// A run's scored answers by "<repetition>/<item>".
using ScoredAnswers = std::map<std::string, ItemRecord>;

struct RunComparison {
  int paired = 0;          // answers both runs judged (the ones compared)
  int unpaired = 0;        // answers only one run has, or only one judged
  RunSummary candidate;    // over the paired answers only
  RunSummary baseline;     // likewise
  McNemar test;            // candidate against baseline, on the paired answers
  PairedT per_repetition;  // per-repetition accuracies; valid with 2 or more repetitions in both
};

RunComparison compare_runs(const ScoredAnswers& candidate, const ScoredAnswers& baseline);

}  // namespace kaisha::eval
