// An upper bound on a request's input tokens that no tokenizer exceeds: what a
// budget reservation must hold so that a provider cannot bill more than was
// reserved, whatever the language (hashiru.md §4's "cannot overshoot").
//
// Every tokenizer the providers use — byte-level BPE (GPT, Llama 3, Qwen) and
// SentencePiece with byte fallback (Gemini, Llama 2, Mistral) — makes at most
// one token per byte of the text it encodes. Only the provider's framing adds
// tokens that are not in the text: role markers and separators of its chat
// template, the dummy-prefix piece, the reply primer, a tool-use preamble and
// the rendering of each tool schema. Those are bounded by the constants below.
// So the bound is the bytes of the serialised request plus the framing; it is
// about 4x the usual estimate for English and about right for CJK or emoji.
#pragma once

#include <cstdint>

#include "runtime/llm/chat.hpp"

namespace kaisha::llm {

// Framing tokens counted on top of the request's bytes.
struct TokenFraming {
  // Per message: role markers, separators and the dummy-prefix piece.
  static constexpr int64_t per_message = 16;
  // Per request: BOS and the assistant-reply primer.
  static constexpr int64_t per_request = 16;
  // Per tool call in a message and per tool schema: the provider's wrapping
  // of the call or schema (the JSON text itself is counted in bytes).
  static constexpr int64_t per_tool = 32;
  // Once when the request offers tools: the tool-use preamble a provider puts
  // into the prompt (the largest published one is a few hundred tokens).
  static constexpr int64_t tools_preamble = 1024;
};

// The bytes of every message (content, tool call ids, names and arguments,
// tool_call_id, name) and tool schema (name, description, parameters as
// compact JSON), plus TokenFraming. Always at least per_request.
int64_t input_token_bound(const ChatRequest& request);

// The bound for the two-message request an employee without tools sends for
// an ask: its system prompt and the asker's prompt.
int64_t ask_input_token_bound(const std::string& system_prompt, const std::string& prompt);

}  // namespace kaisha::llm
