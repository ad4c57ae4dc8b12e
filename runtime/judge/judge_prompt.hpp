// The judge's prompt (infiagent.md §3.6.2, §9 Appendix B, §10 items 21–23),
// kept as templates: prompts/judge/audit.md is the system prompt (the
// Appendix B judge text plus the Output Control Prompt, with {{task_id}}),
// prompts/judge/audit_input.md the first user message, which carries the
// original instruction and the claimed execution result.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::planning {

struct JudgePrompt {
  std::string system;
  std::string user;
};

// Error (code "prompt") naming the path of a missing or unreadable template.
Result<JudgePrompt> render_judge_prompt(std::string_view task_id, std::string_view instruction,
                                        std::string_view claimed_result, const std::string& root = data_root());

}  // namespace kaisha::planning
