// TurnUpdates maps one prompt turn's progress events (the one event
// vocabulary, docs/events.md) to the Agent Client Protocol's session/update
// payloads, and decides the turn's stop reason:
//
//   thinking                      agent_thought_chunk (what a model said besides its tool calls)
//   tool_call / tool_result       tool_call (in_progress) / tool_call_update (completed or failed),
//                                 with the tool's kind, its arguments and its result as content
//   ask / answer                  tool_call "Ask <employee>" / tool_call_update with the answer;
//                                 a refusal or error naming the employee fails it
//   plan, subtask (effgen)        plan entries, one per subtask, with their status
//   strategy subtask (HALO)       a plan entry per subtask, the earlier ones completed
//   ask / answer with a call id   (the pyramid's calls) plan entries too
//   usage (the CEO's model calls) usage_update, once track_usage() is called
//
// The CEO's AskAgent tool call is shown by its ask, not twice. The answer
// itself is not mapped here: the turn sends the task's result once it ends.
// Not thread-safe: the caller serialises events of one turn.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "protocols/agent_client/agent_client_wire.hpp"
#include "runtime/core/json.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::agent_client {

class TurnUpdates {
 public:
  // The session/update payloads (the "update" member) event `e` gives: none, one or more.
  std::vector<json> on_event(const msg::ProgressEvent& e);

  // The stop reason of a turn whose task ended with `r`: cancelled when it
  // was canceled; refusal when it failed after a refusal (the budget or a
  // rule); max_tokens when it ended on a CEO reply cut at the model's token
  // limit; end_turn otherwise.
  StopReason stop_reason(const msg::TaskResult& r) const;

  // The id of the tool call in progress for `tool` by `agent` (the latest),
  // so that a permission request names the call the editor already shows;
  // "" when there is none.
  std::string open_tool_call(const std::string& agent, const std::string& tool) const;

  bool saw_refusal() const { return refused_; }

  // From here on, each CEO model call (a usage event) gives a usage_update:
  // its tokens as the context used of `context_size`, and `session_usd` (the
  // session's expense when the turn began) plus what the turn's model calls
  // cost so far. A context_size of 0 sends none.
  void track_usage(int64_t context_size, double session_usd);
  // The tokens of the CEO's latest model call (0 before any).
  int64_t context_used() const { return context_used_; }

 private:
  struct Entry {
    std::string key;
    std::string content;
    std::string status;  // pending | in_progress | completed
  };
  json plan() const;
  Entry* entry(const std::string& key);
  std::string new_id(const std::string& prefix);
  std::vector<json> tool_call(const msg::ProgressEvent& e);
  std::vector<json> tool_result(const msg::ProgressEvent& e);
  std::vector<json> ask(const msg::ProgressEvent& e);
  std::vector<json> answer(const msg::ProgressEvent& e, bool failed);

  std::vector<Entry> plan_;
  std::map<std::string, std::string> tool_ids_;  // agent + call id -> toolCallId
  struct Open {
    std::string agent, tool, id;
  };
  std::vector<Open> open_tools_;                // tool calls started, not answered
  std::map<std::string, std::string> ask_ids_;  // agent (+ job or call) -> toolCallId
  int next_id_ = 0;
  int halo_subtasks_ = 0;
  bool refused_ = false;
  std::string last_finish_reason_;
  int64_t context_size_ = 0;
  int64_t context_used_ = 0;
  double usd_ = 0;
};

}  // namespace kaisha::agent_client
