#include "runtime/company/conversation.hpp"

#include "runtime/core/json_text.hpp"

namespace kaisha::company {
namespace {

bool arguments_parse(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return true;  // no arguments
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return !v.is_discarded() && v.is_object();
}

}  // namespace

Conversation::Conversation(std::string system_prompt, ConversationLimits limits) : limits_(limits) {
  messages_.push_back({llm::Role::system, std::move(system_prompt), {}, "", ""});
}

void Conversation::add_user(const std::string& text) {
  messages_.push_back({llm::Role::user, text, {}, "", ""});
  turns_ = 0;
  malformed_ = 0;
}

void Conversation::add_context(const std::string& text) { messages_.push_back({llm::Role::user, text, {}, "", ""}); }

llm::ChatRequest Conversation::request(const std::vector<llm::ToolSpec>& tools, std::optional<double> temperature,
                                       std::optional<int64_t> max_tokens) const {
  llm::ChatRequest r;
  r.messages = messages_;
  r.tools = tools;
  r.temperature = temperature;
  r.max_tokens = max_tokens;
  return r;
}

NextStep Conversation::on_response(const llm::ChatResponse& response) {
  llm::ChatMessage m = response.message;
  m.role = llm::Role::assistant;
  messages_.push_back(m);
  ++turns_;
  NextStep step;
  step.text = m.content;
  if (m.tool_calls.empty()) {
    if (m.content.find_first_not_of(" \t\r\n") == std::string::npos) {
      step.kind = NextStep::Kind::fail;
      step.text = "the model returned an empty answer";
      return step;
    }
    step.kind = NextStep::Kind::answer;
    return step;
  }
  bool any_malformed = false;
  for (const auto& c : m.tool_calls) any_malformed = any_malformed || !arguments_parse(c.arguments);
  if (any_malformed && ++malformed_ > limits_.max_malformed) {
    step.kind = NextStep::Kind::fail;
    step.text = "the model kept sending malformed tool-call arguments (" + std::to_string(malformed_) +
                " answers, limit " + std::to_string(limits_.max_malformed) + ")";
    return step;
  }
  if (turns_ >= limits_.max_turns) {
    step.kind = NextStep::Kind::fail;
    step.text = "no final answer after " + std::to_string(turns_) + " model calls (ceo.max_turns)";
    return step;
  }
  step.kind = NextStep::Kind::run_tools;
  step.calls = m.tool_calls;
  return step;
}

void Conversation::add_tool_result(const llm::ToolCall& call, const json& result) {
  llm::ChatMessage m;
  m.role = llm::Role::tool;
  m.tool_call_id = call.id;
  m.name = call.name;
  m.content = dump_text(result);
  messages_.push_back(std::move(m));
}

bool Conversation::replace_with_summary(size_t first, size_t last, std::string summary) {
  if (first < 1 || first >= last || last > messages_.size()) return false;
  messages_.erase(messages_.begin() + static_cast<std::ptrdiff_t>(first),
                  messages_.begin() + static_cast<std::ptrdiff_t>(last));
  messages_.insert(messages_.begin() + static_cast<std::ptrdiff_t>(first),
                   llm::ChatMessage{llm::Role::system, std::move(summary), {}, "", ""});
  return true;
}

}  // namespace kaisha::company
