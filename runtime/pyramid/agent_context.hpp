// AgentContext: the four-part context of every model call a pyramid agent
// makes (InfiAgent, infiagent.md §3.8 Eq. 7 and §10 item 39), in a fixed
// order:
//   C_sys  the system message: the agent's responsibility and workflow and
//          the Output Control Prompt, with {task_id} filled in
//          (prompts/pyramid/agent_system.md, output_control.md);
//   C_LM   the task's workspace index, compressed to its token budget, and
//   C_SM   the calls running now, in one user message after the system one
//          (prompts/pyramid/shared_context.md), rebuilt for every call so
//          that files siblings wrote and calls that ended show at once;
//   C_ENV  this call's own conversation: its instruction, its tool calls and
//          their results (and, once compressed, the summary in their place).
// parts() gives each part's text and tokens, for introspection and tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/prompt/prompt_template.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/call_tree.hpp"
#include "runtime/pyramid/workspace_index.hpp"

namespace kaisha::pyramid {

struct ContextPart {
  std::string text;
  int64_t tokens = 0;
};

struct ContextParts {
  ContextPart system;       // C_sys
  ContextPart long_term;    // C_LM
  ContextPart short_term;   // C_SM
  ContextPart environment;  // C_ENV, all its messages
  int64_t total() const { return system.tokens + long_term.tokens + short_term.tokens + environment.tokens; }
};

class AgentContext {
 public:
  // Reads the three prompt files from `prompts_dir` (default: the install's prompts/).
  static Result<AgentContext> load(const std::string& prompts_dir = "");

  // The system message of `agent` in task `task_id`.
  std::string system_prompt(const AgentDefinition& agent, const std::string& task_id) const;

  // The messages of one model call of `agent` (call `call` in `tree`): C_sys,
  // then C_LM and C_SM, then `environment` (the call's conversation without
  // a system message of its own; one at its front is dropped).
  std::vector<llm::ChatMessage> messages(const AgentDefinition& agent, const std::string& task_id,
                                         const WorkspaceIndex& index, int64_t index_budget, const CallTree& tree,
                                         uint64_t call, const std::vector<llm::ChatMessage>& environment) const;

  // The same four parts as text with their tokens by `count`.
  ContextParts parts(const AgentDefinition& agent, const std::string& task_id, const WorkspaceIndex& index,
                     int64_t index_budget, const CallTree& tree, uint64_t call,
                     const std::vector<llm::ChatMessage>& environment, const TokenCounter& count) const;

 private:
  AgentContext(planning::PromptTemplate system, planning::PromptTemplate shared, std::string output_control)
      : system_(std::move(system)), shared_(std::move(shared)), output_control_(std::move(output_control)) {}
  std::string long_term_text(const WorkspaceIndex& index, int64_t budget) const;
  std::string shared_message(const std::string& task_id, const std::string& files, const std::string& calls) const;

  planning::PromptTemplate system_;
  planning::PromptTemplate shared_;
  std::string output_control_;
};

}  // namespace kaisha::pyramid
