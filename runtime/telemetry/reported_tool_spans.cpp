#include "runtime/telemetry/reported_tool_spans.hpp"

#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tool_span.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::telemetry {
namespace {

// The event's call id as text ("" when it has none).
std::string call_id_of(const json& data) {
  if (!data.is_object()) return "";
  for (const char* key : {"call_id", "call"}) {
    auto it = data.find(key);
    if (it == data.end()) continue;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  }
  return "";
}

}  // namespace

void ReportedToolSpans::called(const json& data, const std::string& text, const std::string& task_id) {
  if (!tracer()) return;
  if (!open_.empty() && open_.begin()->second.task_id != task_id) end_all("the task ended before the tool answered");
  if (open_.size() >= kMaxOpen) return;
  const std::string id = call_id_of(data);
  if (id.empty() || open_.count(id)) return;
  std::string tool = data.is_object() ? data.value("tool", std::string()) : std::string();
  if (tool.empty()) tool = text.substr(0, text.find(' '));
  if (tool.empty() || (invokes_agent_ && invokes_agent_(tool))) return;
  auto span = tool_span(tool, id, "", task_id);
  if (!span) return;
  open_[id] = Open{tool, task_id, ++seq_, std::move(span), false};
}

void ReportedToolSpans::returned(const json& data) {
  auto it = open_.find(call_id_of(data));
  if (it == open_.end()) return;
  Span& span = *it->second.span;
  const json* result = data.is_object() && data.contains("result") ? &data["result"] : nullptr;
  const bool failed = result && result->is_object() && result->value("status", std::string()) == "error";
  if (failed) span.set(attr::kErrorType, "tool_error");
  end_span(span, failed ? SpanStatus::error : SpanStatus::ok,
           failed ? result->value("message", std::string("the tool failed")) : "");
  open_.erase(it);
}

std::string ReportedToolSpans::claim(const std::string& tool, const std::string& task_id) {
  Open* oldest = nullptr;
  for (auto& [_, o] : open_)
    if (!o.claimed && o.tool == tool && o.task_id == task_id && (!oldest || o.seq < oldest->seq)) oldest = &o;
  if (!oldest) return "";
  oldest->claimed = true;
  return traceparent_of(*oldest->span);
}

void ReportedToolSpans::end_all(const std::string& why) {
  for (auto& [_, o] : open_) end_span(*o.span, SpanStatus::error, why);
  open_.clear();
}

}  // namespace kaisha::telemetry
