// HALO's early stop (halo.md §5.1, §12 item 8): after each subtask, stop the
// outer loop when enough of the completed subtasks' answers agree.
//
// Every answer's support is the number of answers equivalent to it,
// itself included: identical answers always agree (HALO's reference code
// skips identical strings, so exact duplicates never counted; that bug is
// not kept). The answer with the most support is the majority, the earliest
// one on a tie. The loop stops when there are at least 2 answers and
// support / answers >= threshold: [A, A, B] stops with A at the default
// 0.66, [A, B] does not, nor does [A] alone.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/answers/equivalence.hpp"

namespace kaisha::answers {

inline constexpr double kConsistencyThreshold = 0.66;  // the paper's 66% (~2/3, Byzantine 3p+1)

struct ConsistencyOptions {
  Equivalence equivalence = Equivalence::exact;
  double threshold = kConsistencyThreshold;  // fraction of answers that must agree, in (0, 1]
  double bleu_threshold = kBleuMatchThreshold;
};

struct Consistency {
  bool stop = false;
  std::string majority;  // the answer with the most support (empty when there are no answers)
  size_t index = 0;      // its position in the answers
  size_t agreeing = 0;   // its support, itself included (0 when there are no answers)
  size_t total = 0;      // the number of answers
};

// Whether two answers agree; it is asked for every ordered pair of distinct
// positions, never for an answer against itself.
using AnswerMatcher = std::function<bool(std::string_view, std::string_view)>;

// Over the completed subtask answers, in order. Quadratic in their number
// (HALO's budget K is a handful).
Consistency check_consistency(const std::vector<std::string>& answers, const AnswerMatcher& agree,
                              double threshold = kConsistencyThreshold);
Consistency check_consistency(const std::vector<std::string>& answers, const ConsistencyOptions& options = {});

}  // namespace kaisha::answers
