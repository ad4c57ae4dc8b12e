// ShortTermMemory: effGen's bounded conversation tier (effgen.md §8.1, §23
// item 35). Messages carry a token estimate (~4 characters per token). When
// their total reaches threshold · max_tokens (0.85 by default), everything but
// the SYSTEM messages and the last `keep_recent` (10) messages is to be
// summarised: the owner sends summary_prompt() to a model and hands the answer
// to apply_summary(), which replaces those messages by one summary message.
// This class makes no model calls itself.
//
// A message marked keep_with_next (a tool call) stays with its successor
// (its result): the cut moves back so both are kept.
//
// Beyond max_messages the oldest message that is neither SYSTEM nor a summary
// is dropped (the paper only says "bounded deque").
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace kaisha::memory {

enum class StmRole { system, user, assistant, tool };

struct StmMessage {
  StmRole role = StmRole::user;
  std::string content;
  double timestamp = 0;
  int64_t est_tokens = 0;
  bool summary = false;  // the result of a summarisation
  // A summary may not end right after this message: a tool call and its
  // results stay on one side of the cut (the kept side).
  bool keep_with_next = false;
};

struct ShortTermConfig {
  int64_t max_tokens = 4096;
  size_t max_messages = 100;
  double summarization_threshold = 0.85;
  size_t keep_recent = 10;
};

// What a summarisation did (effGen's SUMMARIZATION_TRIGGER event).
struct SummaryEvent {
  int64_t original_tokens = 0;    // of the messages replaced
  int64_t summarized_tokens = 0;  // of the summary
  double reduction_ratio = 0;     // 1 − summarized / original
  size_t messages_replaced = 0;
};

class ShortTermMemory {
 public:
  explicit ShortTermMemory(ShortTermConfig config = {}, std::string summarize_prefix = "Summarize this conversation: ");

  void add(StmRole role, std::string content, double timestamp = 0);
  // Adds a prepared message; its est_tokens is computed when 0.
  void add(StmMessage message);
  const std::deque<StmMessage>& messages() const { return messages_; }
  int64_t total_tokens() const;

  // True when the total is at or above the threshold and there is something
  // older than the last keep_recent messages to summarise.
  bool needs_summary() const;
  // "Summarize this conversation: " + the messages to be replaced, one per
  // line as "<role>: <content>".
  std::string summary_prompt() const;
  // Replaces the messages summary_prompt() listed by one summary message
  // (placed before the kept ones).
  SummaryEvent apply_summary(const std::string& summary);

  // The n most recent messages plus every SYSTEM message, in order.
  std::vector<StmMessage> context(size_t n) const;

  // Indices of the messages a summary replaces, ascending: every message
  // that is not SYSTEM (an earlier summary is folded in) before the last
  // keep_recent — or before more of them when the cut would separate a
  // message from its keep_with_next successor.
  std::vector<size_t> summarisable() const;

 private:
  ShortTermConfig config_;
  std::string prefix_;
  std::deque<StmMessage> messages_;
};

const char* role_name(StmRole r);
int64_t estimate_stm_tokens(const std::string& text);

}  // namespace kaisha::memory
