#include "runtime/answers/consistency.hpp"

namespace kaisha::answers {

Consistency check_consistency(const std::vector<std::string>& answers, const AnswerMatcher& agree, double threshold) {
  Consistency result;
  result.total = answers.size();
  for (size_t i = 0; i < answers.size(); ++i) {
    size_t support = 1;  // the answer itself
    for (size_t j = 0; j < answers.size(); ++j)
      if (j != i && agree(answers[i], answers[j])) ++support;
    if (support > result.agreeing) {  // strictly more: a tie keeps the earlier answer
      result.agreeing = support;
      result.index = i;
    }
  }
  if (answers.empty()) return result;
  result.majority = answers[result.index];
  result.stop =
      answers.size() >= 2 && static_cast<double>(result.agreeing) / static_cast<double>(answers.size()) >= threshold;
  return result;
}

Consistency check_consistency(const std::vector<std::string>& answers, const ConsistencyOptions& options) {
  return check_consistency(
      answers,
      [&](std::string_view a, std::string_view b) {
        return equivalent(options.equivalence, a, b, options.bleu_threshold);
      },
      options.threshold);
}

}  // namespace kaisha::answers
