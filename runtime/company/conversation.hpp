// Conversation is the pure logic of an agent's tool-calling (ReAct) loop,
// free of actors and I/O: it holds the message history, builds the next
// model request, reads the model's answer and says what to do next — run
// these tool calls, deliver this final answer, or give up and why.
//
// Limits it enforces (hashiru.md §9 B, issue "bad input"):
//  - at most `max_turns` model answers per user message;
//  - at most `max_malformed` answers carrying tool calls whose arguments are
//    not valid JSON; each one still goes back to the model as an error result
//    so it can correct itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::company {

struct ConversationLimits {
  int max_turns = 30;
  int max_malformed = 3;
};

struct NextStep {
  enum class Kind { run_tools, answer, fail };
  Kind kind = Kind::answer;
  std::vector<llm::ToolCall> calls;  // run_tools: in the order the model gave them
  std::string text;                  // answer text, the model's reasoning, or the failure reason
};

class Conversation {
 public:
  Conversation(std::string system_prompt, ConversationLimits limits);

  // A new user turn; resets the per-turn counters.
  void add_user(const std::string& text);
  // Extra context for the model (retrieved memories), as a user-role message.
  void add_context(const std::string& text);

  llm::ChatRequest request(const std::vector<llm::ToolSpec>& tools, std::optional<double> temperature,
                           std::optional<int64_t> max_tokens = std::nullopt) const;

  // Appends the model's answer and decides the next step.
  NextStep on_response(const llm::ChatResponse& response);

  // Appends the result of one tool call the model asked for.
  void add_tool_result(const llm::ToolCall& call, const json& result);

  // Short-term memory (memory::ConversationSummarizer): replaces messages
  // [first, last) by one system message `summary`. The system prompt
  // (message 0) is never replaced; a bad range changes nothing and returns false.
  bool replace_with_summary(size_t first, size_t last, std::string summary);

  const std::vector<llm::ChatMessage>& messages() const { return messages_; }
  int turns() const { return turns_; }

 private:
  std::vector<llm::ChatMessage> messages_;
  ConversationLimits limits_;
  int turns_ = 0;
  int malformed_ = 0;
};

}  // namespace kaisha::company
