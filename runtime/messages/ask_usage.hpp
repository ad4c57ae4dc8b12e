// What one ask used: the agent's first model call (AskReply::usage, which
// the asker reserved and settles) plus the further calls an agent with tools
// made and settled itself (AskReply::extra_usage). Tokens only: the further
// calls' dollars are in AskReply::extra_expense.
#pragma once

#include "runtime/messages/agent_messages.hpp"

namespace kaisha::msg {

inline llm::Usage ask_usage(const AskReply& r) {
  llm::Usage u = r.usage;
  u.input_tokens += r.extra_usage.input_tokens;
  u.output_tokens += r.extra_usage.output_tokens;
  return u;
}

}  // namespace kaisha::msg
