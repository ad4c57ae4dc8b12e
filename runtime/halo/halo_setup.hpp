// What every HALO task of one company shares (halo.md §3-§7): the settings,
// the prompt texts loaded once from prompts/halo/, the backbone model the
// role agents are hired on, and what is impure, as functions. The driver
// (halo_driver.hpp) reads no file and holds no clock: its setup brings all.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/result.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/halo/halo_settings.hpp"
#include "runtime/halo/replies/halo_prompts.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::halo {

// The texts of HALO's calls. Every HaloPrompt the driver renders must be in
// `templates` (the driver finishes a task with an error naming the missing
// ones, see missing_prompts); the answer parsers' prompts are not used.
struct HaloPrompts {
  std::map<HaloPrompt, planning::PromptTemplate> templates;
  // The subtask-agent builders' fallback system prompt (an unreadable reply).
  std::string assistant_fallback;
  // The path context before an agent's solve request (halo.md §6.2, item
  // 12): for every earlier agent, a user message from `context_response`
  // ({{role}}, {{answer}}) and an assistant message `context_acknowledgement`.
  planning::PromptTemplate context_response = planning::PromptTemplate::from_text("");
  std::string context_acknowledgement;
};

// The HaloPrompt values the driver renders, in HaloPrompt order.
const std::vector<HaloPrompt>& driver_prompts();

// The names of driver_prompts() missing from `prompts` ("" when none), e.g.
// "judge.md, scorer.md".
std::string missing_prompts(const HaloPrompts& prompts);

// Loads them from <root>/prompts/halo/ (the spawner calls it once). Error
// (code "prompt") naming the file that cannot be read or whose placeholders
// differ from what the driver fills.
Result<HaloPrompts> load_halo_prompts(const std::string& root = data_root());

// The built-in tool halo.code_tool offers the role agents.
inline constexpr const char* kCodeTool = "PythonSandboxTool";

struct HaloSetup {
  HaloSettings settings;
  std::shared_ptr<const HaloPrompts> prompts;
  // The backbone the role agents are hired on (its model_ref answers their
  // asks, its create costs are paid once per hired agent). HALO's own calls
  // (refinement, planner, role design, prompt builders, judge, scorer) are
  // CallModel effects: the actor's model role says which model they call.
  economy::ModelCost agent_cost;
  // The code tool offered to the role agents (halo.code_tool: the built-in
  // PythonSandboxTool, run by RunTool effects); none: they answer in one call.
  std::optional<llm::ToolSpec> code_tool;
  // Whether anybody listens to progress; chatty events (the selections)
  // are built only then. Null: nobody.
  std::function<bool()> listening;
};

}  // namespace kaisha::halo
