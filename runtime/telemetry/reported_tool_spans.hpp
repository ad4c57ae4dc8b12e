// ReportedToolSpans: the spans of tool calls a strategy's driver runs itself
// (HASHIRU's AgentCreator, AskAgent, FireAgent...; the pyramid's agent tools).
// The runtime sees such a call only as the tool_call and tool_result events
// the driver reports, so its "execute_tool {tool}" span opens and ends with
// them. A tool the runtime runs for the driver (a RunTool effect) claims the
// span its tool_call event opened instead of starting a second one.
//
// A call that invokes an agent (HASHIRU's AskAgent) gets no span here: the
// GenAI conventions name an agent's invocation invoke_agent, and the agent's
// own turn is that span.
//
// Call ids come from the event's data: "call_id" (HASHIRU) or "call" (the
// pyramid); the tool's name from data "tool", else the event text's first
// word. At most kMaxOpen calls are followed at once. Not thread-safe: one
// per strategy actor. No-ops when tracing is off.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/telemetry/span.hpp"

namespace kaisha::telemetry {

class ReportedToolSpans {
 public:
  static constexpr size_t kMaxOpen = 1024;

  // Which tools invoke an agent (null: none do).
  explicit ReportedToolSpans(std::function<bool(const std::string& tool)> invokes_agent = nullptr)
      : invokes_agent_(std::move(invokes_agent)) {}

  // A tool_call event of task `task_id`: opens the call's span. Spans still
  // open from another task (one that failed without a word) end first.
  void called(const json& data, const std::string& text, const std::string& task_id);
  // A tool_result event: ends the call's span; a result whose status is
  // "error" ends it as an error with the result's message.
  void returned(const json& data);
  // For a RunTool of `tool` in task `task_id`: the traceparent of the oldest
  // open span of that tool and task not yet claimed, now claimed; "" when
  // there is none.
  std::string claim(const std::string& tool, const std::string& task_id);
  // Ends every open span as an error saying `why` (the task ended first).
  void end_all(const std::string& why);

  size_t open() const { return open_.size(); }

 private:
  struct Open {
    std::string tool;
    std::string task_id;
    uint64_t seq = 0;
    std::shared_ptr<Span> span;
    bool claimed = false;
  };
  std::function<bool(const std::string& tool)> invokes_agent_;
  std::map<std::string, Open> open_;  // by call id
  uint64_t seq_ = 0;
};

}  // namespace kaisha::telemetry
