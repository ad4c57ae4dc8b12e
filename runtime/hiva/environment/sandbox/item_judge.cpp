#include "runtime/hiva/environment/sandbox/item_judge.hpp"

#include "runtime/hiva/environment/sandbox/unit_test_run.hpp"
#include "runtime/hiva/environment/scripted_environment.hpp"

namespace kaisha::hiva {

Result<EnvironmentFeedback> judge_item(const suite::SuiteItem& item, const std::string& answer,
                                       const sandbox::SandboxLimits& limits, const CheckOptions& options,
                                       const std::string& scratch_dir) {
  if (item.format == suite::kCode) {
    auto run = run_item_tests(item, answer, limits, scratch_dir);
    if (!run.ok()) return Error{run.error().code, "the sandbox could not run the tests: " + run.error().message};
    return run;
  }
  if (item.format == suite::kInteractive) {
    auto env = ScriptedEnvironment::from_item(item);
    if (!env.ok()) return env.error();
    return env->step(answer);
  }
  return check_answer(item, answer, options);
}

}  // namespace kaisha::hiva
