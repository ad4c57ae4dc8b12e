#include "runtime/judge/judge_prompt.hpp"

#include <filesystem>

#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::planning {

Result<JudgePrompt> render_judge_prompt(std::string_view task_id, std::string_view instruction,
                                        std::string_view claimed_result, const std::string& root) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(root) / "prompts" / "judge";
  Result<PromptTemplate> system = PromptTemplate::load((dir / "audit.md").string());
  if (!system) return system.error();
  Result<PromptTemplate> user = PromptTemplate::load((dir / "audit_input.md").string());
  if (!user) return user.error();
  Result<std::string> s = system->render({{"task_id", std::string(task_id)}});
  if (!s) return s.error();
  Result<std::string> u =
      user->render({{"instruction", std::string(instruction)}, {"result", std::string(claimed_result)}});
  if (!u) return u.error();
  return JudgePrompt{std::move(s).value(), std::move(u).value()};
}

}  // namespace kaisha::planning
