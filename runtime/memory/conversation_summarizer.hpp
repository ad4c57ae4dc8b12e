// ConversationSummarizer applies effGen's short-term tier (ShortTermMemory,
// effgen.md §8.1, §23 item 35) to an agent's Conversation — the CEO's, which
// is also what a `kaisha chat` session accumulates. When the conversation's
// token estimate reaches threshold · context_tokens (0.85 by default), every
// message but the system prompt and the last keep_recent (10) is to be
// replaced by one summary, written by the agent's own model: plan() says
// which messages and gives the prompt for that call, apply() puts the answer
// in their place. A tool call and its results are never separated (the cut
// moves back so both stay). This class makes no model calls itself.
#pragma once

#include <optional>
#include <string>

#include "runtime/company/conversation.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/memory/short_term_memory.hpp"

namespace kaisha::memory {

// The messages a summary is to replace, and the request for it.
struct ConversationSummaryPlan {
  size_t first = 1;  // conversation messages [first, last)
  size_t last = 1;
  size_t conversation_size = 0;     // apply() refuses a conversation that changed since
  int64_t conversation_tokens = 0;  // estimate of the whole conversation before
  std::string prompt;               // the summarising call's user message
};

class ConversationSummarizer {
 public:
  // Reads prompts/memory/summarize_conversation.md (the instruction) and
  // prompts/memory/conversation_summary.md (the summary message, {summary})
  // from `prompts_dir` (default: the install's prompts/).
  static Result<ConversationSummarizer> create(const config::ShortTermConfig& config,
                                               const std::string& prompts_dir = "");

  // Set when the conversation has reached the threshold and holds something
  // older than the kept messages (a lone earlier summary does not count).
  std::optional<ConversationSummaryPlan> plan(const company::Conversation& c) const;

  // Replaces the planned messages by one system message holding `summary`.
  // Error when the conversation changed since plan().
  Result<SummaryEvent> apply(company::Conversation& c, const ConversationSummaryPlan& plan,
                             const std::string& summary) const;

  // The conversation's token estimate (~4 characters per token, tool calls included).
  int64_t tokens(const company::Conversation& c) const;

  const config::ShortTermConfig& config() const { return config_; }

 private:
  ConversationSummarizer(config::ShortTermConfig config, std::string instruction, std::string summary_template)
      : config_(config), instruction_(std::move(instruction)), summary_template_(std::move(summary_template)) {}
  ShortTermMemory mirror(const company::Conversation& c) const;

  config::ShortTermConfig config_;
  std::string instruction_;
  std::string summary_template_;
};

}  // namespace kaisha::memory
