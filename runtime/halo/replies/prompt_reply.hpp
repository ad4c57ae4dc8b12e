// The prompt-building agents' replies (halo.md §4, §8 items 2-5): P2, P3 and
// P4 refine the user's query into Q*; the three subtask-agent builders do the
// same for each role's system prompt rho. Each reply is a JSON object whose
// one key that matters holds the prompt text.
#pragma once

#include <string>
#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

enum class PromptReply {
  generated_template,  // P2: "Generated Prompt Template"
  optimized_template,  // P3: "Optimized Prompt Template"
  final_prompt,        // P4: "Final Prompt" (this is Q*)
  agent_template,      // subtask-agent builder 1: "Prompt Template"
  agent_optimized,     // builder 2: "Optimized Prompt Template"
  agent_final,         // builder 3: "Final Prompt" (this is rho)
};

// The JSON key the reply must hold, as above.
std::string_view reply_key(PromptReply kind);

// The prompt text, trimmed. When it cannot be read (no object, key missing,
// not a string, blank) it is `fallback`, which the caller gives as HALO
// documents: the raw user query for P2-P4, the generic assistant prompt
// (prompts/halo/assistant_fallback.md, load_assistant_fallback) for the
// subtask-agent builders.
Parsed<std::string> parse_prompt_reply(PromptReply kind, std::string_view reply, std::string_view fallback);

}  // namespace kaisha::halo
