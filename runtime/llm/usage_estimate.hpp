// Token estimates for when a provider sends no usage figures (some local
// servers, cut streams). Budgets still need a number; ~4 characters per token
// is the usual rule of thumb for English text and errs on the high side for
// code-free prose. It is an estimate, not a bound (CJK text runs at about one
// token per character, three bytes): reservations use token_bound.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "runtime/llm/chat.hpp"

namespace kaisha::llm {

// ceil(chars / 4), and at least 1 for non-empty text; 0 for empty text.
int64_t estimate_tokens(std::string_view text);

// Tokens of every message's content, tool call names/arguments and tool specs
// of `request`, at least 1.
int64_t estimate_input_tokens(const ChatRequest& request);

// Tokens of the reply's text and tool calls, at least 1.
int64_t estimate_output_tokens(const ChatMessage& reply);

// If response.usage.estimated (the provider sent none), fills input_tokens
// from `request` when it is 0 and output_tokens from the reply when it is 0.
// Leaves provider-reported usage alone.
void fill_estimated_usage(const ChatRequest& request, ChatResponse& response);

}  // namespace kaisha::llm
