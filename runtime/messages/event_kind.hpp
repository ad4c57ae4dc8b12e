// The event vocabulary: every kind of thing a running company reports, in
// one list. Progress events (msg::ProgressEvent: the transcript, `--json`,
// the event streams of `kaisha serve` and of a cluster client) and journal
// steps (store::StepRow) both take their kind from here, so a consumer reads
// one vocabulary whichever of them it watches.
//
// Each kind has one wire name (its text in msgpack, JSON and the journal;
// never changed once released) and belongs to one group:
//   task      a task's life: started, ended with an answer, failed, canceled
//   agent     hires, fires, asks and answers, placement on a cluster node
//   model     model calls, their usage and retries
//   tool      tool calls and their results
//   judge     the judge's verdicts
//   strategy  structure only one strategy has (effgen's plan and subtasks,
//             hashiru's memories); the strategy's catalog entry renders it
//   journal   journal-only detail (a model request, a note)
#pragma once

#include <cstdint>
#include <ostream>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kaisha::msg {

enum class EventKind : uint8_t {
  // task
  task,         // a task started; text = its input
  final,        // the task ended with an answer; data = its totals
  canceled,     // the task was canceled; data = its totals
  error,        // an agent's error, or the task failed (then data holds wall_ms)
  agent_error,  // an agent's error as a remote client sees it (the task goes on)
  ledgers,      // a cluster client's closing snapshot of both ledgers
  // agent
  hire,
  fire,
  ask,
  answer,
  refusal,    // a hire, an ask or a tool refused (budget, rules)
  placed,     // an agent was placed on a cluster node
  node_down,  // a node was lost with an agent on it
  rehire,     // a lost agent was hired again on another node
  // model
  thinking,  // what a model said besides its tool calls
  usage,     // a model call's tokens and $
  retry,     // a model call or an interrupted ask is retried
  llm_request,
  llm_response,
  // tool
  tool_call,
  tool_result,
  // judge
  verdict,
  // strategy: effgen
  routing,
  plan,
  subtask,
  synthesis,
  // strategy: hashiru
  memories,
  reflection,
  summary,
  // strategy: pyramid
  route,     // where a task entered the pyramid, with every agent's score
  trigger,   // an evolution trigger (a new task, an agent's poor performance) and why
  branches,  // a call run by several candidate models ended: each branch's outcome and changes, the one merged
  // journal
  note,
  // task (added later; kinds keep their place)
  input_required,  // the task waits for its user's answer; text = the question
  // strategy: any strategy's own kinds (strategy_event.hpp), data =
  // {"strategy": its name, "event": the sub-kind, ...}; the released kinds
  // above keep their names, new strategies use this one
  strategy,
  // tool (added later; kinds keep their place)
  breaker,  // a tool's circuit breaker changed state; data = the journal note, with tool and agent
};

enum class EventGroup : uint8_t { task, agent, model, tool, judge, strategy, journal };

struct EventKindInfo {
  EventKind kind;
  std::string_view name;  // the wire name
  EventGroup group;
  bool journaled;  // a journal step may have this kind (store::kStepKinds)
};

// Every kind, in declaration order.
const std::vector<EventKindInfo>& event_kinds();

// The wire name of `kind`.
std::string_view event_kind_name(EventKind kind);

// The kind whose wire name is `name`; nullopt for a name not in the vocabulary.
std::optional<EventKind> parse_event_kind(std::string_view name);

EventGroup event_kind_group(EventKind kind);

// True for the kinds that end a task as seen by whoever waits for it: final,
// canceled, or error carrying the task's totals (`has_totals`).
inline bool ends_task(EventKind kind, bool has_totals) {
  return kind == EventKind::final || kind == EventKind::canceled || (kind == EventKind::error && has_totals);
}

// Writes the wire name (test failures and logs read it).
inline std::ostream& operator<<(std::ostream& o, EventKind kind) { return o << event_kind_name(kind); }

// JSON holds a kind as its wire name; a name outside the vocabulary throws
// nlohmann::json::type_error.
void to_json(nlohmann::json& j, EventKind kind);
void from_json(const nlohmann::json& j, EventKind& kind);

}  // namespace kaisha::msg
