#include "runtime/memory/conversation_summarizer.hpp"

#include <algorithm>
#include <limits>

#include "runtime/core/data_paths.hpp"
#include "runtime/memory/memory_texts.hpp"

namespace kaisha::memory {

Result<ConversationSummarizer> ConversationSummarizer::create(const config::ShortTermConfig& config,
                                                              const std::string& prompts_dir) {
  const std::string dir = (prompts_dir.empty() ? data_file("prompts") : prompts_dir) + "/memory/";
  auto instruction = read_text_file(dir + "summarize_conversation.md");
  if (!instruction.ok()) return instruction.error();
  auto summary = read_text_file(dir + "conversation_summary.md");
  if (!summary.ok()) return summary.error();
  if (summary->find("{summary}") == std::string::npos)
    return Error{"data", dir + "conversation_summary.md: the template has no {summary}"};
  // The instruction ends where the conversation's lines begin.
  std::string text = std::move(instruction).value();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return ConversationSummarizer(config, std::move(text), std::move(summary).value());
}

namespace {

// What ShortTermMemory is given for a message: tool calls and results are
// written out so that their size counts.
std::string mirrored_text(const llm::ChatMessage& m) {
  if (m.role == llm::Role::tool) return "[" + m.name + " answered] " + m.content;
  std::string text = m.content;
  for (const auto& call : m.tool_calls) text += "\n[calls " + call.name + " with " + call.arguments + "]";
  return text;
}

// estimate_stm_tokens(mirrored_text(m)) without building the text: this runs
// before every model call, mostly to find that nothing is due.
int64_t message_tokens(const llm::ChatMessage& m) {
  size_t n = m.content.size();
  if (m.role == llm::Role::tool) n += m.name.size() + 12;                                    // "[" name " answered] "
  for (const auto& call : m.tool_calls) n += call.name.size() + call.arguments.size() + 15;  // "\n[calls " " with " "]"
  return std::max<int64_t>(1, static_cast<int64_t>((n + 3) / 4));
}

}  // namespace

// The conversation as ShortTermMemory sees it: message i is entry i. The
// system prompt is SYSTEM; any later system message is an earlier summary.
ShortTermMemory ConversationSummarizer::mirror(const company::Conversation& c) const {
  ShortTermConfig sc;
  sc.max_tokens = config_.context_tokens;
  sc.summarization_threshold = config_.threshold;
  sc.keep_recent = static_cast<size_t>(config_.keep_recent);
  sc.max_messages = std::numeric_limits<size_t>::max();  // never drop: indices must match
  ShortTermMemory stm(sc, instruction_);
  const auto& ms = c.messages();
  for (size_t i = 0; i < ms.size(); ++i) {
    const llm::ChatMessage& m = ms[i];
    StmMessage e;
    e.content = mirrored_text(m);
    e.est_tokens = message_tokens(m);
    switch (m.role) {
      case llm::Role::system:
        e.role = StmRole::system;
        e.summary = i > 0;
        break;
      case llm::Role::user:
        e.role = StmRole::user;
        break;
      case llm::Role::assistant:
        e.role = StmRole::assistant;
        e.keep_with_next = !m.tool_calls.empty();
        break;
      case llm::Role::tool:
        e.role = StmRole::tool;
        e.keep_with_next = i + 1 < ms.size() && ms[i + 1].role == llm::Role::tool;
        break;
    }
    stm.add(std::move(e));
  }
  return stm;
}

int64_t ConversationSummarizer::tokens(const company::Conversation& c) const {
  int64_t total = 0;
  for (const auto& m : c.messages()) total += message_tokens(m);
  return total;
}

std::optional<ConversationSummaryPlan> ConversationSummarizer::plan(const company::Conversation& c) const {
  if (static_cast<double>(tokens(c)) < config_.threshold * static_cast<double>(config_.context_tokens))
    return std::nullopt;
  ShortTermMemory stm = mirror(c);
  if (!stm.needs_summary()) return std::nullopt;
  const std::vector<size_t> idx = stm.summarisable();
  // Only the system prompt is kept before the cut, so the range is contiguous.
  if (idx.empty() || idx.front() != 1 || idx.back() + 1 != idx.front() + idx.size()) return std::nullopt;
  ConversationSummaryPlan p;
  p.first = idx.front();
  p.last = idx.back() + 1;
  p.conversation_size = c.messages().size();
  p.conversation_tokens = stm.total_tokens();
  p.prompt = stm.summary_prompt();
  return p;
}

Result<SummaryEvent> ConversationSummarizer::apply(company::Conversation& c, const ConversationSummaryPlan& plan,
                                                   const std::string& summary) const {
  if (c.messages().size() != plan.conversation_size)
    return Error{"memory", "the conversation changed while it was being summarised (" +
                               std::to_string(plan.conversation_size) + " messages, now " +
                               std::to_string(c.messages().size()) + ")"};
  const std::string message = fill(summary_template_, "summary", summary);
  ShortTermMemory stm = mirror(c);
  SummaryEvent ev = stm.apply_summary(message);
  if (!c.replace_with_summary(plan.first, plan.last, message))
    return Error{"memory", "cannot replace conversation messages [" + std::to_string(plan.first) + ", " +
                               std::to_string(plan.last) + ")"};
  return ev;
}

}  // namespace kaisha::memory
