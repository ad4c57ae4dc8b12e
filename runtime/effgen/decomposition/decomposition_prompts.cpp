#include "runtime/effgen/decomposition/decomposition_prompts.hpp"

#include <filesystem>

namespace kaisha::planning {

std::string decomposition_prompt_path(routing::Strategy strategy, const std::string& root) {
  return (std::filesystem::path(root) / "prompts" / "effgen" /
          ("decompose_" + std::string(routing::to_string(strategy)) + ".md"))
      .string();
}

Result<PromptTemplate> load_decomposition_prompt(routing::Strategy strategy, const std::string& root) {
  return PromptTemplate::load(decomposition_prompt_path(strategy, root));
}

Result<std::string> render_decomposition_prompt(routing::Strategy strategy, std::string_view task,
                                                const std::string& root) {
  Result<PromptTemplate> t = load_decomposition_prompt(strategy, root);
  if (!t) return t.error();
  return t->render({{"task", std::string(task)}});
}

}  // namespace kaisha::planning
