#include "runtime/halo/replies/halo_prompts.hpp"

#include <algorithm>
#include <filesystem>

#include "runtime/answers/trim.hpp"

namespace kaisha::halo {
namespace {

using Names = std::vector<std::string>;

std::string listed(const Names& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "{{" : ", {{") + n + "}}";
  return out;
}

}  // namespace

std::string_view file_name(HaloPrompt prompt) {
  switch (prompt) {
    case HaloPrompt::task_parser:
      return "task_parser.md";
    case HaloPrompt::prompt_template:
      return "prompt_template.md";
    case HaloPrompt::prompt_optimizer:
      return "prompt_optimizer.md";
    case HaloPrompt::final_prompt:
      return "final_prompt.md";
    case HaloPrompt::agent_prompt_template:
      return "agent_prompt_template.md";
    case HaloPrompt::agent_prompt_optimizer:
      return "agent_prompt_optimizer.md";
    case HaloPrompt::agent_final_prompt:
      return "agent_final_prompt.md";
    case HaloPrompt::task_decomposition:
      return "task_decomposition.md";
    case HaloPrompt::role_design:
      return "role_design.md";
    case HaloPrompt::inference_solve:
      return "inference_solve.md";
    case HaloPrompt::judge:
      return "judge.md";
    case HaloPrompt::scorer:
      return "scorer.md";
    case HaloPrompt::parse_mmlu:
      return "parse_mmlu.md";
    case HaloPrompt::parse_math:
      return "parse_math.md";
    case HaloPrompt::assistant_fallback:
      return "assistant_fallback.md";
  }
  return "unknown.md";
}

const std::vector<std::string>& placeholders(HaloPrompt prompt) {
  static const Names kQuery = {"query"};
  static const Names kTriple = {"query", "task_type", "core_intent", "key_details"};
  static const Names kOptimizer = {"query", "task_type", "core_intent", "key_details", "prompt_template"};
  static const Names kFinal = {"query", "task_type", "core_intent", "key_details", "optimized_template"};
  static const Names kAgentTemplate = {"subtask", "role"};
  static const Names kAgentOptimizer = {"subtask", "role", "prompt_template"};
  static const Names kAgentFinal = {"subtask", "role", "optimized_template"};
  static const Names kPlanner = {"query", "task_type", "core_intent", "key_details", "history"};
  static const Names kSubtask = {"query", "task_type", "core_intent", "key_details", "subtask"};
  static const Names kJudge = {"query", "task_type", "core_intent", "key_details", "subtask", "role", "output"};
  static const Names kScorer = {"query",   "task_type", "core_intent", "key_details",
                                "subtask", "role",      "output",      "judge_status"};
  static const Names kResult = {"result"};
  static const Names kNone = {};
  switch (prompt) {
    case HaloPrompt::task_parser:
      return kQuery;
    case HaloPrompt::prompt_template:
      return kTriple;
    case HaloPrompt::prompt_optimizer:
      return kOptimizer;
    case HaloPrompt::final_prompt:
      return kFinal;
    case HaloPrompt::agent_prompt_template:
      return kAgentTemplate;
    case HaloPrompt::agent_prompt_optimizer:
      return kAgentOptimizer;
    case HaloPrompt::agent_final_prompt:
      return kAgentFinal;
    case HaloPrompt::task_decomposition:
      return kPlanner;
    case HaloPrompt::role_design:
    case HaloPrompt::inference_solve:
      return kSubtask;
    case HaloPrompt::judge:
      return kJudge;
    case HaloPrompt::scorer:
      return kScorer;
    case HaloPrompt::parse_mmlu:
    case HaloPrompt::parse_math:
      return kResult;
    case HaloPrompt::assistant_fallback:
      return kNone;
  }
  return kNone;
}

std::string halo_prompt_path(HaloPrompt prompt, const std::string& root) {
  return (std::filesystem::path(root) / "prompts" / "halo" / std::string(file_name(prompt))).string();
}

Result<planning::PromptTemplate> load_halo_prompt(HaloPrompt prompt, const std::string& root) {
  std::string path = halo_prompt_path(prompt, root);
  Result<planning::PromptTemplate> t = planning::PromptTemplate::load(path);
  if (!t) return t.error();
  Names used = t->placeholders(), expected = placeholders(prompt);
  Names unknown, unused;
  for (const std::string& n : used)
    if (std::find(expected.begin(), expected.end(), n) == expected.end()) unknown.push_back(n);
  for (const std::string& n : expected)
    if (std::find(used.begin(), used.end(), n) == used.end()) unused.push_back(n);
  if (!unknown.empty())
    return Error{"prompt", "prompt template " + path + " uses " + listed(unknown) +
                               ", which HALO does not fill there (it fills " + listed(expected) + ")"};
  if (!unused.empty())
    return Error{"prompt", "prompt template " + path + " does not use " + listed(unused) + ", an input of this agent"};
  return t;
}

Result<std::string> render_halo_prompt(HaloPrompt prompt, const std::map<std::string, std::string>& values,
                                       const std::string& root) {
  Result<planning::PromptTemplate> t = load_halo_prompt(prompt, root);
  if (!t) return t.error();
  return t->render(values);
}

Result<std::string> load_assistant_fallback(const std::string& root) {
  Result<std::string> text = render_halo_prompt(HaloPrompt::assistant_fallback, {}, root);
  if (!text) return text.error();
  return std::string(answers::trim(*text));
}

}  // namespace kaisha::halo
