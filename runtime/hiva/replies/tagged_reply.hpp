// Replies whose answer the model wraps in a tag (hiva.md §10): the system
// feedback, the self-critique and the math teacher's review in
// <FEEDBACK>...</FEEDBACK> (Figs. 7, §7.1, §10 item 9), a prompt rewrite in
// <IMPROVED_VARIABLE>...</IMPROVED_VARIABLE> (Fig. 9), a new agent's system
// prompt in <SYSTEM_PROMPT>...</SYSTEM_PROMPT>. Tag names match
// case-insensitively; a ``` fence around the tagged text is dropped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

inline constexpr std::string_view kFeedbackTag = "FEEDBACK";
inline constexpr std::string_view kImprovedVariableTag = "IMPROVED_VARIABLE";
inline constexpr std::string_view kSystemPromptTag = "SYSTEM_PROMPT";

// The feedback inside <FEEDBACK>...</FEEDBACK>, trimmed. Several blocks are
// joined by a blank line; an unclosed tag (a reply cut off) gives the text
// after it. Without a usable tag the value is the whole reply with any
// FEEDBACK tags removed, trimmed — feedback in the wrong shape is still
// feedback — and `defaulted` is set. Empty only when the reply is.
Parsed<std::string> parse_feedback(std::string_view reply);

// The rewritten prompt inside <IMPROVED_VARIABLE>...</IMPROVED_VARIABLE>,
// trimmed; the last closed non-empty block when there are several (a model
// that shows the format first). nullopt — no change — with a problem when
// there is no closed tag (a cut-off rewrite is never applied) or the rewrite
// is blank.
Parsed<std::optional<std::string>> parse_improved_variable(std::string_view reply);

// A new agent's system prompt inside <SYSTEM_PROMPT>...</SYSTEM_PROMPT>,
// trimmed. Without a closed tag: the text after an unclosed one, else the
// whole reply trimmed, with a problem; `fallback` (the driver gives the new
// agent's description) when that is blank.
Parsed<std::string> parse_new_agent_prompt(std::string_view reply, std::string_view fallback);

}  // namespace kaisha::hiva
