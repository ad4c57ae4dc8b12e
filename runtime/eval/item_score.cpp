#include "runtime/eval/item_score.hpp"

#include "runtime/hiva/environment/answer_check.hpp"
#include "runtime/hiva/environment/sandbox/unit_test_run.hpp"

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
  auto run = hiva::run_item_tests(item, answer, limits, scratch_dir);
  if (!run.ok()) return run.error();
  return from_feedback(*run);
}

}  // namespace kaisha::eval
