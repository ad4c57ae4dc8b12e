// An agent's localised textual gradient (Fig. 8): three labelled fields,
//   SYSTEM_PROMPT_FEEDBACK: role improvements     (drives the prompt update)
//   TOOL_FEEDBACK: tool improvements              (drives the tool update)
//   OVERALL_FEEDBACK: strategic improvements
// read from lines ("1. **SYSTEM_PROMPT_FEEDBACK:** ..."), from one line as
// in the figure's example, from headings ("### Tool Feedback"), or from a
// JSON object with those keys. Labels match case-insensitively with '_',
// '-', ' ' or nothing between their words; a value runs to the next label
// and may span lines.
#pragma once

#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

struct AgentFeedback {
  std::string system_prompt;  // SYSTEM_PROMPT_FEEDBACK
  std::string tool;           // TOOL_FEEDBACK
  std::string overall;        // OVERALL_FEEDBACK
};

// Each field trimmed; a field the model gives as "None", "N/A" or "-" is
// empty (nothing to change) without a problem. A missing field is empty, and
// the problem names it. When the reply has none of the three labels the
// whole reply (trimmed) is the overall feedback — a gradient in the wrong
// shape still says what went wrong — and `defaulted` is set. A field that
// appears twice keeps its first non-empty value.
Parsed<AgentFeedback> parse_agent_feedback(std::string_view reply);

}  // namespace kaisha::hiva
