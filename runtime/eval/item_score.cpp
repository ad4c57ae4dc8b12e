#include "runtime/eval/item_score.hpp"

#include "runtime/hiva/environment/answer_check.hpp"
#include "runtime/hiva/environment/sandbox/item_judge.hpp"

namespace kaisha::eval {

namespace {

ItemScore from_feedback(const hiva::EnvironmentFeedback& f) { return {f.success, f.score, f.text}; }

}  // namespace

bool eval_can_score(const suite::SuiteItem& item) { return !item.format.empty() && item.format != suite::kInteractive; }

ItemScore score_item(const suite::SuiteItem& item, const std::string& answer) {
  // The user reads the evaluation: the reference may be shown.
  return from_feedback(hiva::check_answer(item, answer, hiva::CheckOptions{true}));
}

Result<ItemScore> score_code_item(const suite::SuiteItem& item, const std::string& answer,
                                  const sandbox::SandboxLimits& limits, const std::string& scratch_dir) {
  auto judged = hiva::judge_item(item, answer, limits, hiva::CheckOptions{true}, scratch_dir);
  if (!judged.ok()) return judged.error();
  return from_feedback(*judged);
}

}  // namespace kaisha::eval
