#include "runtime/llm/usage_estimate.hpp"

#include <algorithm>

namespace kaisha::llm {

int64_t estimate_tokens(std::string_view text) {
  if (text.empty()) return 0;
  return std::max<int64_t>(1, static_cast<int64_t>((text.size() + 3) / 4));
}

static int64_t message_chars(const ChatMessage& m) {
  int64_t n = static_cast<int64_t>(m.content.size());
  for (const auto& c : m.tool_calls) n += static_cast<int64_t>(c.name.size() + c.arguments.size());
  return n;
}

int64_t estimate_input_tokens(const ChatRequest& request) {
  int64_t chars = 0;
  for (const auto& m : request.messages) chars += message_chars(m);
  for (const auto& t : request.tools)
    chars += static_cast<int64_t>(t.name.size() + t.description.size() + t.parameters.dump().size());
  return std::max<int64_t>(1, (chars + 3) / 4);
}

int64_t estimate_output_tokens(const ChatMessage& reply) {
  return std::max<int64_t>(1, (message_chars(reply) + 3) / 4);
}

void fill_estimated_usage(const ChatRequest& request, ChatResponse& response) {
  if (!response.usage.estimated) return;
  if (response.usage.input_tokens == 0) response.usage.input_tokens = estimate_input_tokens(request);
  if (response.usage.output_tokens == 0) response.usage.output_tokens = estimate_output_tokens(response.message);
}

}  // namespace kaisha::llm
