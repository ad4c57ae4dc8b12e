#include "runtime/hiva/environment/sandbox/task_set_environment.hpp"

#include <utility>
#include <vector>

#include "runtime/hiva/environment/sandbox/item_judge.hpp"
#include "runtime/hiva/environment/scripted_environment.hpp"

namespace kaisha::hiva {

std::string_view environment_kind(std::string_view format) {
  if (format == suite::kCode) return "unit_tests";
  if (format == suite::kInteractive) return "interactive";
  if (format == suite::kNumeric || format == suite::kLatex) return "math";
  return "metric";
}

TaskSetEnvironment::TaskSetEnvironment(std::map<std::string, suite::SuiteItem> items, int64_t timeout_s)
    : items_(std::move(items)), timeout_s_(timeout_s) {}

company::ToolResult TaskSetEnvironment::judge(const json& request) {
  using company::ToolResult;
  const std::string who = kEnvironmentTool;
  if (!request.is_object()) return ToolResult::error(who + ": the request must be a JSON object");
  for (const char* field : {"item", "answer"})
    if (!request.contains(field) || !request[field].is_string())
      return ToolResult::error(who + ": request." + field + " must be a string");
  const std::string id = request["item"].get<std::string>();
  auto it = items_.find(id);
  if (it == items_.end()) return ToolResult::error(who + ": no task '" + id + "' in the task set");
  const suite::SuiteItem& item = it->second;
  const std::string answer = request["answer"].get<std::string>();

  Result<EnvironmentFeedback> judged = EnvironmentFeedback{};
  bool continues = false;
  if (item.format == suite::kInteractive && request.contains("answers")) {
    if (!request["answers"].is_array()) return ToolResult::error(who + ": request.answers must be a list of strings");
    std::vector<std::string> answers;
    for (const json& a : request["answers"]) {
      if (!a.is_string()) return ToolResult::error(who + ": request.answers must be a list of strings");
      answers.push_back(a.get<std::string>());
    }
    if (answers.empty()) answers.push_back(answer);
    auto env = ScriptedEnvironment::from_item(item);
    if (!env.ok()) return ToolResult::error(env.error().message);
    judged = env->play(answers);
    continues = !env->ended();
  } else {
    sandbox::SandboxLimits limits;
    limits.wall_timeout_ms = timeout_s_ * 1000;
    limits.cpu_seconds = timeout_s_;
    judged = judge_item(item, answer, limits);
  }
  if (!judged.ok()) return ToolResult::error(judged.error().message);
  const EnvironmentFeedback& f = *judged;
  json out{{"kind", environment_kind(item.format)}, {"text", f.text}, {"continues", continues}};
  out["success"] = f.success ? json(*f.success) : json(nullptr);
  if (f.score) out["score"] = *f.score;
  return ToolResult::success(f.text, std::move(out));
}

}  // namespace kaisha::hiva
