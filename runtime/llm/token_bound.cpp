#include "runtime/llm/token_bound.hpp"

namespace kaisha::llm {

namespace {

int64_t message_bound(const ChatMessage& m) {
  int64_t n = TokenFraming::per_message;
  n += static_cast<int64_t>(m.content.size() + m.tool_call_id.size() + m.name.size());
  for (const auto& c : m.tool_calls)
    n += TokenFraming::per_tool + static_cast<int64_t>(c.id.size() + c.name.size() + c.arguments.size());
  return n;
}

}  // namespace

int64_t input_token_bound(const ChatRequest& request) {
  int64_t n = TokenFraming::per_request;
  for (const auto& m : request.messages) n += message_bound(m);
  if (!request.tools.empty()) n += TokenFraming::tools_preamble;
  for (const auto& t : request.tools)
    // Replacing invalid UTF-8 (a tool server's schema) keeps the byte count:
    // U+FFFD is 3 bytes for each bad byte, never fewer than the original.
    n += TokenFraming::per_tool +
         static_cast<int64_t>(t.name.size() + t.description.size() +
                              t.parameters.dump(-1, ' ', false, json::error_handler_t::replace).size());
  return n;
}

int64_t ask_input_token_bound(const std::string& system_prompt, const std::string& prompt) {
  ChatRequest r;
  r.messages.push_back({Role::system, system_prompt, {}, "", ""});
  r.messages.push_back({Role::user, prompt, {}, "", ""});
  return input_token_bound(r);
}

}  // namespace kaisha::llm
