// The message vocabulary between agents. Each struct names its wire type and
// version; the msgpack encoding is a map so fields can be added without
// breaking older readers (missing keys keep their defaults, unknown keys are
// ignored). Bump kVersion only for incompatible changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json.hpp"
#include "runtime/core/json_msgpack.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/messages/agent_ref.hpp"
#include "runtime/messages/event_kind.hpp"
#include "runtime/messages/event_kind_msgpack.hpp"

namespace kaisha::msg {

// What defines an employee: HASHIRU's AgentCreator arguments plus the cost
// record it was hired under (so a fire refunds exactly what the hire charged).
struct AgentSpec {
  static constexpr const char* kType = "agent_spec";
  static constexpr uint32_t kVersion = 1;
  std::string name;
  std::string base_model;  // cost-table name, e.g. "mistral"
  std::string model_ref;   // provider:model, e.g. "ollama:mistral"
  std::string type;        // "local" | "cloud"
  std::string system_prompt;
  std::string description;
  json costs = json::object();  // the cost-table entry at hire time
  // The sampling of the agent's model calls, when its hirer sets one (a
  // strategy's own temperature and seed); unset: the employee's defaults
  // (employee.temperature, no seed), as for a spec from a peer that predates them.
  std::optional<double> temperature;
  std::optional<int64_t> seed;
  MSGPACK_DEFINE_MAP(name, base_model, model_ref, type, system_prompt, description, costs, temperature, seed)
};

// CEO → employee: one question. The employee answers with AskReply.
struct AskRequest {
  static constexpr const char* kType = "ask_request";
  static constexpr uint32_t kVersion = 2;
  std::string session_id;
  std::string task_id;
  std::string prompt;
  int64_t max_output_tokens = 0;  // 0 = the employee's default
  // The asker's unit of work this ask belongs to (the planner's subtask id).
  // When set, the asker journals the answer itself, as the employee's
  // llm_response step with the job and what the call cost, and the employee
  // journals only its request (and a failure): one step per answer, not two.
  // Empty (as from an asker that predates it): the employee journals both.
  std::string job;
  // The input tokens the asker's reservation covers for the employee's first
  // model call (llm::ask_input_token_bound). An employee whose first request
  // is bigger (its tool schemas) reserves that call itself. 0: none held.
  int64_t input_token_bound = 0;
  // A turn: when `messages` is set, the agent makes exactly one model call
  // with these messages (the asker's whole context, its system message
  // included, in place of the agent's own system prompt and `prompt`) and
  // `tools`, and answers with the model's text and the tool calls it asks
  // for (AskReply::tool_requests), which the asker runs. A strategy that
  // builds every call's context itself (the pyramid) asks this way. Sent as
  // version 2 (wire_version): an older agent refuses it instead of
  // answering `prompt` alone.
  std::vector<llm::ChatMessage> messages;
  std::vector<llm::ToolSpec> tools;
  // Resuming (driver/ask_step.hpp). `call`: the asker's number for this ask
  // within its task (0: none); an employee with a tool loop keeps each
  // finished step under it. `replay`: the steps a run of this ask kept
  // before its process died, in order; the employee feeds them to its loop
  // instead of calling the model and the tools again. An agent that
  // predates them ignores both and runs the ask whole, as it always did.
  int64_t call = 0;
  std::vector<std::string> replay;
  // Tracing: the W3C traceparent of the span the answer belongs under ("":
  // the task's root span). Across nodes it also travels as the envelope's
  // trace field, which the receiving node puts here.
  std::string trace;
  MSGPACK_DEFINE_MAP(session_id, task_id, prompt, max_output_tokens, job, input_token_bound, messages, tools, call,
                     replay, trace)
};

// The version an ask goes out as: 2 for a turn, else 1 (any agent understands).
inline uint32_t wire_version(const AskRequest& a) { return a.messages.empty() ? 1 : 2; }

struct AskReply {
  static constexpr const char* kType = "ask_reply";
  static constexpr uint32_t kVersion = 1;
  std::string agent;
  bool ok = true;
  std::string output;  // the answer text when ok
  std::string error;   // what went wrong when !ok
  llm::Usage usage;    // the first model call's: the asker reserved it and settles it
  int64_t latency_ms = 0;
  // An employee with tools (a tool-calling loop) reserves and settles its
  // further model calls and its tools' declared costs on the ledger itself;
  // this is what they came to, for the asker's reports (not to be charged again).
  llm::Usage extra_usage;
  double extra_expense = 0;  // USD
  int tool_calls = 0;
  // A turn's answer (AskRequest::messages): the tool calls the model asks
  // for, in its order, not run.
  std::vector<llm::ToolCall> tool_requests;
  MSGPACK_DEFINE_MAP(agent, ok, output, error, usage, latency_ms, extra_usage, extra_expense, tool_calls, tool_requests)
};

// User → CEO: one task (one user turn in a chat).
struct TaskRequest {
  static constexpr const char* kType = "task_request";
  static constexpr uint32_t kVersion = 1;
  std::string session_id;
  std::string task_id;
  std::string input;
  MSGPACK_DEFINE_MAP(session_id, task_id, input)
};

struct TaskResult {
  static constexpr const char* kType = "task_result";
  static constexpr uint32_t kVersion = 1;
  std::string task_id;
  bool ok = true;
  std::string answer;
  std::string error;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;  // USD spent by this task
  int64_t wall_ms = 0;
  json metadata = json::object();  // strategy-specific: routing, subtasks, speedup, ...
  bool canceled = false;           // stopped on request (ok is false, error says why)
  MSGPACK_DEFINE_MAP(task_id, ok, answer, error, tokens_in, tokens_out, expense, wall_ms, metadata, canceled)
};

// Any agent → judge: check a claimed result against the instruction it
// answers (infiagent.md §10 items 21–27).
struct AuditRequest {
  static constexpr const char* kType = "audit_request";
  static constexpr uint32_t kVersion = 1;
  std::string task_id;
  std::string producer;  // the agent whose quality score the verdict updates
  std::string instruction;
  std::string claimed_result;
  // The audit's call number in its task (0: none): the judge's charges are
  // journaled with its kept outcome (actors/strategy_kit/charged_call.hpp KeptWith).
  int64_t kept_call = 0;
  MSGPACK_DEFINE_MAP(task_id, producer, instruction, claimed_result, kept_call)
};

struct AuditVerdict {
  static constexpr const char* kType = "audit_verdict";
  static constexpr uint32_t kVersion = 1;
  bool success = false;
  std::string output;             // the judge's report
  std::string error_information;  // why it was rejected
  bool malformed = false;         // the judge's answer could not be read
  bool judge_failed = false;      // the judge could not be asked (budget, provider)
  double quality = 0;             // the producer's quality score after this verdict
  MSGPACK_DEFINE_MAP(success, output, error_information, malformed, judge_failed, quality)
};

// A progress event for people and tools watching a task: hires, asks, fires,
// tool calls, tokens, $ and resource use. `kind` comes from the one event
// vocabulary (event_kind.hpp); `data` holds the kind's details.
struct ProgressEvent {
  static constexpr const char* kType = "progress_event";
  static constexpr uint32_t kVersion = 1;
  std::string session_id;
  std::string task_id;
  std::string agent;
  EventKind kind = EventKind::note;
  std::string text;
  json data = json::object();
  int64_t at_ms = 0;
  std::string node;        // the cluster node it happened on; "" = this process
  int64_t tokens_in = 0;   // the tokens and $ this event accounts for (an
  int64_t tokens_out = 0;  // answer, a model call's usage, a task's totals);
  double usd = 0;          // 0 for events that cost nothing
  MSGPACK_DEFINE_MAP(session_id, task_id, agent, kind, text, data, at_ms, node, tokens_in, tokens_out, usd)
};

// True for the event that ends its task (event_kind.hpp's ends_task): the
// strategy marks it with the task's totals, whose `wall_ms` it checks.
inline bool ends_task(const ProgressEvent& e) {
  return ends_task(e.kind, e.data.is_object() && e.data.contains("wall_ms"));
}

// Employee → model client and back: one chat completion.
struct LlmCall {
  static constexpr const char* kType = "llm_call";
  static constexpr uint32_t kVersion = 1;
  std::string model_ref;
  llm::ChatRequest request;
  // Tracing (runtime/telemetry/tracer.hpp): the W3C traceparent of the span
  // this call belongs to, and who makes it; "" when unknown (no span then).
  std::string trace;
  std::string agent;
  MSGPACK_DEFINE_MAP(model_ref, request, trace, agent)
};

struct LlmResult {
  static constexpr const char* kType = "llm_result";
  static constexpr uint32_t kVersion = 1;
  bool ok = true;
  llm::ChatResponse response;
  std::string error;
  MSGPACK_DEFINE_MAP(ok, response, error)
};

}  // namespace kaisha::msg
