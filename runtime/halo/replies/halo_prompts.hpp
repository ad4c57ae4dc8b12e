// HALO's prompts (halo.md §8), kept as templates in prompts/halo/<name>.md so
// they can be tuned without recompiling; each is one message, the agent's
// instructions with its inputs filled in ({{placeholder}}, see
// runtime/prompt/prompt_template.hpp). The fields, as HALO names them:
//   query        the user query: raw Q for P1-P4, Q* after them
//   task_type, core_intent, key_details   the task triple F (TaskParse)
//   prompt_template, optimized_template   the previous builder's output
//   subtask, role, output, judge_status   the subtask, the agent's role, its
//                answer, the judge's label ("success"|"fail"|"continue")
//   history      the planner's view of the completed subtasks
//   result       the subtask answer an answer parser reads
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/result.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::halo {

enum class HaloPrompt {
  task_parser,             // P1 -> TaskParse
  prompt_template,         // P2 -> "Generated Prompt Template"
  prompt_optimizer,        // P3 -> "Optimized Prompt Template"
  final_prompt,            // P4 -> "Final Prompt" (Q*)
  agent_prompt_template,   // subtask-agent builders -> "Prompt Template",
  agent_prompt_optimizer,  //   "Optimized Prompt Template",
  agent_final_prompt,      //   "Final Prompt" (rho)
  task_decomposition,      // the planner -> "next subtask"
  role_design,             // the role designer -> "agent roles"
  inference_solve,         // an inference agent's request (its system prompt is rho)
  judge,                   // -> "status"
  scorer,                  // -> "score"
  parse_mmlu,              // -> "answer": a letter
  parse_math,              // -> "answer": boxed{...}
  assistant_fallback,      // the system prompt when a builder's reply is unreadable
};

inline constexpr std::array kHaloPrompts = {
    HaloPrompt::task_parser,
    HaloPrompt::prompt_template,
    HaloPrompt::prompt_optimizer,
    HaloPrompt::final_prompt,
    HaloPrompt::agent_prompt_template,
    HaloPrompt::agent_prompt_optimizer,
    HaloPrompt::agent_final_prompt,
    HaloPrompt::task_decomposition,
    HaloPrompt::role_design,
    HaloPrompt::inference_solve,
    HaloPrompt::judge,
    HaloPrompt::scorer,
    HaloPrompt::parse_mmlu,
    HaloPrompt::parse_math,
    HaloPrompt::assistant_fallback,
};

// "task_parser.md", ...
std::string_view file_name(HaloPrompt prompt);

// The placeholders the driver fills for `prompt`, in the order HALO lists
// the fields; a prompt file uses exactly these.
const std::vector<std::string>& placeholders(HaloPrompt prompt);

// <root>/prompts/halo/<file_name>.
std::string halo_prompt_path(HaloPrompt prompt, const std::string& root = data_root());

// Error (code "prompt") naming the path when the file cannot be read, or
// when its placeholders differ from placeholders(prompt): one the driver
// does not fill would fail every render, one left out loses an input.
Result<planning::PromptTemplate> load_halo_prompt(HaloPrompt prompt, const std::string& root = data_root());

// load_halo_prompt and render; error (code "prompt") naming a placeholder
// without a value.
Result<std::string> render_halo_prompt(HaloPrompt prompt, const std::map<std::string, std::string>& values,
                                       const std::string& root = data_root());

// The generic assistant prompt, trimmed: the fallback system prompt of the
// subtask-agent builders (parse_prompt_reply).
Result<std::string> load_assistant_fallback(const std::string& root = data_root());

}  // namespace kaisha::halo
