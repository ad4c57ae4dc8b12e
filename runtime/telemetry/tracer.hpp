// The process's tracer: where every span kaisha makes goes (a SpanExporter),
// and the rules that tie spans made in different places, actors and nodes
// into one trace per task.
//
// One trace per task. Its trace id and its root span's id are derived from
// the task id (task_trace), so anything that knows the task (an employee on
// another node, a judge, a tool) can parent its span to the task's root
// without being told; a parent handed over as a W3C traceparent (the
// envelope's trace field, AskRequest::trace, LlmCall::trace, MCP's
// _meta.traceparent) is more precise and wins when it parses.
//
// Tracing is off until install_tracer() is called (the CLI does, from the
// config's telemetry.traces); then tracer() is null and begin_span() costs a
// relaxed atomic load. A tracer, once installed, lives until the process
// exits (actors may still hold it); installing another flushes the first.
// Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "runtime/telemetry/span.hpp"
#include "runtime/telemetry/span_exporter.hpp"
#include "runtime/telemetry/trace_context.hpp"

namespace kaisha::telemetry {

class Tracer {
 public:
  Tracer(std::unique_ptr<SpanExporter> exporter, bool include_text)
      : exporter_(std::move(exporter)), include_text_(include_text) {}
  // Whether prompts and answers may go into spans (telemetry.traces.include_text).
  bool include_text() const { return include_text_; }
  void record(Span span) { exporter_->record(std::move(span)); }
  SpanExporter& exporter() { return *exporter_; }

 private:
  std::unique_ptr<SpanExporter> exporter_;
  const bool include_text_;
};

// The installed tracer, or null when tracing is off.
Tracer* tracer();
void install_tracer(std::unique_ptr<Tracer> tracer);
// Sends what the installed tracer holds (before the process exits), waiting
// at most 3 s for a collector that does not answer.
void flush_tracer();

// The task's trace: its trace id, and as span id its root span's.
TraceContext task_trace(std::string_view task_id);

// A span started now: a child of `parent` (a traceparent) when it parses,
// else of the task's root (none when the task id is "" too). Its name,
// kind and, when known, the task id attribute are set.
// With tracing off it is returned empty (span_id "") and costs nothing more.
Span begin_span(std::string name, SpanKind kind, std::string_view parent, std::string_view task_id);
// What to hand a piece of work as its parent: `parent` when set, else the
// traceparent of the task's root; "" when tracing is off or neither is known.
std::string span_parent(std::string_view parent, std::string_view task_id);
// A task's root span, started now (its ids are task_trace's).
Span begin_root_span(std::string name, std::string_view task_id);
// The traceparent of a started span, for its children ("" when it is empty).
std::string traceparent_of(const Span& span);
// Ends `span` now with `status` and records it (nothing for an empty span).
void end_span(Span& span, SpanStatus status = SpanStatus::ok, std::string message = {});

}  // namespace kaisha::telemetry
