#include "runtime/hiva/replies/hiva_prompts.hpp"

#include <algorithm>
#include <filesystem>

namespace kaisha::hiva {
namespace {

using Names = std::vector<std::string>;

std::string listed_names(const Names& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "{{" : ", {{") + n + "}}";
  return out;
}

bool contains(const Names& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// The file as a template, without its final newline: a message ends where
// its text does.
Result<planning::PromptTemplate> load_part(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return Error{"prompt", "prompt template: " + text.error().message};
  std::string body = std::move(*text);
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  return planning::PromptTemplate::from_text(std::move(body), path);
}

}  // namespace

std::string_view prompt_name(HivaPrompt prompt) {
  switch (prompt) {
    case HivaPrompt::instruction:
      return "instruction";
    case HivaPrompt::aggregation:
      return "aggregation";
    case HivaPrompt::agent_step:
      return "agent_step";
    case HivaPrompt::agent_step_tool_failed:
      return "agent_step_tool_failed";
    case HivaPrompt::system_feedback:
      return "system_feedback";
    case HivaPrompt::self_critique:
      return "self_critique";
    case HivaPrompt::agent_feedback:
      return "agent_feedback";
    case HivaPrompt::prompt_update:
      return "prompt_update";
    case HivaPrompt::topology_decision:
      return "topology_decision";
    case HivaPrompt::parallelizability:
      return "parallelizability";
    case HivaPrompt::new_agent_prompt:
      return "new_agent_prompt";
    case HivaPrompt::tool_synthesis:
      return "tool_synthesis";
    case HivaPrompt::tool_refinement:
      return "tool_refinement";
    case HivaPrompt::reward:
      return "reward";
    case HivaPrompt::math_teacher:
      return "math_teacher";
  }
  return "unknown";
}

const std::vector<std::string>& placeholders(HivaPrompt prompt) {
  static const Names kInstruction = {"instruction", "tool_result", "successor_system_prompt", "successor_id"};
  static const Names kAggregation = {"system_prompt", "instruction", "agent_outputs"};
  static const Names kAgentStep = {"system_prompt", "instruction", "tool_result"};
  static const Names kAgentStepFailed = {"system_prompt", "instruction", "tool_error"};
  static const Names kSystemFeedback = {"aggregator_id", "instruction", "environment_feedback", "final_result"};
  static const Names kSelfCritique = {"instruction", "final_result"};
  static const Names kAgentFeedback = {"agent_role", "agent_output", "successor_feedback"};
  static const Names kPromptUpdate = {"system_prompt", "feedback"};
  static const Names kTopology = {"agent_role", "feedback",       "successor_count",
                                  "successors", "max_successors", "parallelizability"};
  static const Names kParallelizability = {"agent_role", "instruction"};
  static const Names kNewAgent = {"description", "predecessor_role", "predecessor_feedback"};
  static const Names kToolSynthesis = {"tool_description", "tool_examples"};
  static const Names kToolRefinement = {"tool_source", "tool_feedback"};
  static const Names kReward = {"agent_role", "gradient"};
  static const Names kMathTeacher = {"problem", "reference_solution", "answer"};
  switch (prompt) {
    case HivaPrompt::instruction:
      return kInstruction;
    case HivaPrompt::aggregation:
      return kAggregation;
    case HivaPrompt::agent_step:
      return kAgentStep;
    case HivaPrompt::agent_step_tool_failed:
      return kAgentStepFailed;
    case HivaPrompt::system_feedback:
      return kSystemFeedback;
    case HivaPrompt::self_critique:
      return kSelfCritique;
    case HivaPrompt::agent_feedback:
      return kAgentFeedback;
    case HivaPrompt::prompt_update:
      return kPromptUpdate;
    case HivaPrompt::topology_decision:
      return kTopology;
    case HivaPrompt::parallelizability:
      return kParallelizability;
    case HivaPrompt::new_agent_prompt:
      return kNewAgent;
    case HivaPrompt::tool_synthesis:
      return kToolSynthesis;
    case HivaPrompt::tool_refinement:
      return kToolRefinement;
    case HivaPrompt::reward:
      return kReward;
    case HivaPrompt::math_teacher:
      return kMathTeacher;
  }
  static const Names kNone;
  return kNone;
}

std::string hiva_prompt_path(HivaPrompt prompt, PromptPart part, const std::string& root) {
  std::string file = std::string(prompt_name(prompt)) + (part == PromptPart::system ? ".system.md" : ".user.md");
  return (std::filesystem::path(root) / "prompts" / "hiva" / file).string();
}

Result<HivaPromptTemplates> load_hiva_prompt(HivaPrompt prompt, const std::string& root) {
  const Names& expected = placeholders(prompt);
  Names used;
  std::vector<planning::PromptTemplate> parts;
  for (PromptPart part : {PromptPart::system, PromptPart::user}) {
    std::string path = hiva_prompt_path(prompt, part, root);
    Result<planning::PromptTemplate> t = load_part(path);
    if (!t) return t.error();
    Names unknown;
    for (const std::string& n : t->placeholders()) {
      if (!contains(expected, n)) unknown.push_back(n);
      if (!contains(used, n)) used.push_back(n);
    }
    if (!unknown.empty())
      return Error{"prompt", "prompt template " + path + " uses " + listed_names(unknown) +
                                 ", which HiVA does not fill there (it fills " + listed_names(expected) + ")"};
    parts.push_back(std::move(*t));
  }
  Names unused;
  for (const std::string& n : expected)
    if (!contains(used, n)) unused.push_back(n);
  if (!unused.empty())
    return Error{"prompt", "prompt templates " + hiva_prompt_path(prompt, PromptPart::system, root) + " and " +
                               hiva_prompt_path(prompt, PromptPart::user, root) + " do not use " +
                               listed_names(unused) + ", an input of this call"};
  return HivaPromptTemplates{std::move(parts[0]), std::move(parts[1])};
}

Result<PromptMessages> render_hiva_prompt(HivaPrompt prompt, const std::map<std::string, std::string>& values,
                                          const std::string& root) {
  Result<HivaPromptTemplates> t = load_hiva_prompt(prompt, root);
  if (!t) return t.error();
  Result<std::string> system = t->system.render(values);
  if (!system) return system.error();
  Result<std::string> user = t->user.render(values);
  if (!user) return user.error();
  return PromptMessages{std::move(*system), std::move(*user)};
}

}  // namespace kaisha::hiva
