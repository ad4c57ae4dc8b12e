// Attribute names and span names for kaisha's spans: the OpenTelemetry GenAI
// semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/,
// status "Development": names may still change upstream, which is why they
// are spelled in this one file) and kaisha's own `kaisha.*` attributes.
//
// Constants and pure functions only; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace kaisha::telemetry::attr {

// What the span does; one of the kOperation* values below. Required on every
// GenAI span.
inline constexpr const char* kGenAiOperationName = "gen_ai.operation.name";
// Who serves the model ("openai", "anthropic", "ollama", ...).
inline constexpr const char* kGenAiProviderName = "gen_ai.provider.name";
// The older name of gen_ai.provider.name (conventions up to v1.36), still what
// many backends group by; kaisha may set both during the transition.
inline constexpr const char* kGenAiSystem = "gen_ai.system";
inline constexpr const char* kGenAiRequestModel = "gen_ai.request.model";
inline constexpr const char* kGenAiResponseModel = "gen_ai.response.model";
// A string array in the conventions; kaisha's attributes are scalars, so the
// one reason a call ends with is sent as a string.
inline constexpr const char* kGenAiResponseFinishReasons = "gen_ai.response.finish_reasons";
inline constexpr const char* kGenAiUsageInputTokens = "gen_ai.usage.input_tokens";    // int
inline constexpr const char* kGenAiUsageOutputTokens = "gen_ai.usage.output_tokens";  // int
inline constexpr const char* kGenAiAgentName = "gen_ai.agent.name";
inline constexpr const char* kGenAiToolName = "gen_ai.tool.name";
inline constexpr const char* kGenAiToolCallId = "gen_ai.tool.call.id";
inline constexpr const char* kGenAiConversationId = "gen_ai.conversation.id";
// The prompt and the answer as the conventions' structured messages (JSON
// text). Sent only with `telemetry.traces.include_text: true`: they can hold
// anything a user typed.
inline constexpr const char* kGenAiInputMessages = "gen_ai.input.messages";
inline constexpr const char* kGenAiOutputMessages = "gen_ai.output.messages";
// The class of error that ended the operation (an exception type, an HTTP
// status, "timeout"); set with SpanStatus::error.
inline constexpr const char* kErrorType = "error.type";

// gen_ai.operation.name values kaisha uses.
inline constexpr const char* kOperationChat = "chat";
inline constexpr const char* kOperationExecuteTool = "execute_tool";
inline constexpr const char* kOperationInvokeAgent = "invoke_agent";

// kaisha's own attributes.
inline constexpr const char* kKaishaTaskId = "kaisha.task.id";
inline constexpr const char* kKaishaNode = "kaisha.node";         // also a resource attribute (otlp_json.hpp)
inline constexpr const char* kKaishaCostUsd = "kaisha.cost.usd";  // double

// Span names as the conventions ask: "{gen_ai.operation.name} {target}", or
// the operation alone when the target is unknown (empty).
inline std::string span_name(std::string_view operation, std::string_view target) {
  std::string name(operation);
  if (!target.empty()) {
    name += ' ';
    name += target;
  }
  return name;
}
inline std::string chat_span_name(std::string_view model) { return span_name(kOperationChat, model); }
inline std::string execute_tool_span_name(std::string_view tool) { return span_name(kOperationExecuteTool, tool); }
inline std::string invoke_agent_span_name(std::string_view agent) { return span_name(kOperationInvokeAgent, agent); }

}  // namespace kaisha::telemetry::attr
