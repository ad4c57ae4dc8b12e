#include "runtime/telemetry/tool_span.hpp"

#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::telemetry {

std::shared_ptr<Span> tool_span(const std::string& tool, const std::string& call_id, std::string_view parent,
                                std::string_view task_id) {
  if (!tracer()) return nullptr;
  auto s = std::make_shared<Span>(begin_span(attr::execute_tool_span_name(tool), SpanKind::internal, parent, task_id));
  if (s->span_id.empty()) return nullptr;
  s->set(attr::kGenAiOperationName, attr::kOperationExecuteTool);
  s->set(attr::kGenAiToolName, tool);
  if (!call_id.empty()) s->set(attr::kGenAiToolCallId, call_id);
  return s;
}

void end_tool_span(Span& span, const company::ToolResult& result) {
  if (result.ok) return end_span(span);
  span.set(attr::kErrorType, "tool_error");
  end_span(span, SpanStatus::error, result.message);
}

}  // namespace kaisha::telemetry
