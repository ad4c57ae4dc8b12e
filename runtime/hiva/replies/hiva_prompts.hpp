// HiVA's prompts (hiva.md §5, §7, §10), kept as templates in prompts/hiva/
// so they can be tuned without recompiling. Each call is two messages, a
// system and a user one, in <name>.system.md and <name>.user.md, with
// {{placeholder}} inputs (runtime/prompt/prompt_template.hpp). The two files
// of a prompt together use exactly placeholders(prompt): one the driver does
// not fill would fail every render, one left out would lose an input.
//
// What the driver fills (its cuts are its own: the figures show
// system_prompt[:300] for the agent feedback and final_result[:200] for the
// system feedback; cut with utf8::shorten):
//   instruction          the task x0, or the instruction an agent received
//   system_prompt        an agent's current system prompt p_i
//   tool_result          what the agent's tool returned
//   tool_error           why the agent's tool failed
//   successor_id, successor_system_prompt   the successor an instruction is for
//   agent_outputs        format_agent_outputs(...) (prompt_inputs.hpp)
//   aggregator_id, environment_feedback, final_result   the loss at the sink
//   agent_role, agent_output, successor_feedback        credit assignment
//   feedback             a gradient: SYSTEM_PROMPT_FEEDBACK for the prompt
//                        update, the agent's feedback for the topology
//   successor_count, successors, max_successors, parallelizability
//                        the topology decision: count, format_successors(...),
//                        the cap (5), describe(Parallelizability)
//   description, predecessor_role, predecessor_feedback   a new agent
//   tool_description, tool_examples, tool_source, tool_feedback   tools
//   gradient             a localised gradient to classify
//   problem, reference_solution, answer                   the math teacher
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/result.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::hiva {

enum class HivaPrompt {
  instruction,             // Fig. 6 -> the successor's instruction (parse_instruction)
  aggregation,             // v_a: the final answer (parse_free_text)
  agent_step,              // an agent over its tool's result (parse_free_text)
  agent_step_tool_failed,  //   ... when the tool failed: "Warning: Tool execution failed."
  system_feedback,         // Fig. 7 -> <FEEDBACK> (parse_feedback)
  self_critique,           // w/o-Env: the aggregator critiques its answer -> <FEEDBACK>
  agent_feedback,          // Fig. 8 -> three fields (parse_agent_feedback)
  prompt_update,           // Fig. 9 -> <IMPROVED_VARIABLE> (parse_improved_variable)
  topology_decision,       // Fig. 10 -> one operation (parse_topology_decision)
  parallelizability,       // §7.4 -> four fields (parse_parallelizability)
  new_agent_prompt,        // a new agent's system prompt -> <SYSTEM_PROMPT>
  tool_synthesis,          // Fig. 12 -> ```python (parse_tool_code)
  tool_refinement,         // Fig. 13 -> ```python (parse_tool_code)
  reward,                  // App. D.4 -> POSITIVE|NEUTRAL|CRITICAL (parse_reward)
  math_teacher,            // §10 item 9 -> VERDICT + <FEEDBACK> (parse_teacher_review)
};

inline constexpr std::array kHivaPrompts = {
    HivaPrompt::instruction,       HivaPrompt::aggregation,
    HivaPrompt::agent_step,        HivaPrompt::agent_step_tool_failed,
    HivaPrompt::system_feedback,   HivaPrompt::self_critique,
    HivaPrompt::agent_feedback,    HivaPrompt::prompt_update,
    HivaPrompt::topology_decision, HivaPrompt::parallelizability,
    HivaPrompt::new_agent_prompt,  HivaPrompt::tool_synthesis,
    HivaPrompt::tool_refinement,   HivaPrompt::reward,
    HivaPrompt::math_teacher,
};

enum class PromptPart { system, user };

// "instruction", "agent_step_tool_failed", ...
std::string_view prompt_name(HivaPrompt prompt);

// The placeholders the driver fills for `prompt`, over both messages.
const std::vector<std::string>& placeholders(HivaPrompt prompt);

// <root>/prompts/hiva/<prompt_name>.system.md or .user.md.
std::string hiva_prompt_path(HivaPrompt prompt, PromptPart part, const std::string& root = data_root());

struct HivaPromptTemplates {
  planning::PromptTemplate system;
  planning::PromptTemplate user;
};

// Both templates, each without its file's final newline. Error (code
// "prompt") naming the path when a file cannot be read or uses a
// placeholder HiVA does not fill there, or naming the prompt when an input
// of placeholders(prompt) is used by neither file.
Result<HivaPromptTemplates> load_hiva_prompt(HivaPrompt prompt, const std::string& root = data_root());

struct PromptMessages {
  std::string system;
  std::string user;
};

// load_hiva_prompt and render both; error (code "prompt") naming a
// placeholder without a value.
Result<PromptMessages> render_hiva_prompt(HivaPrompt prompt, const std::map<std::string, std::string>& values,
                                          const std::string& root = data_root());

}  // namespace kaisha::hiva
