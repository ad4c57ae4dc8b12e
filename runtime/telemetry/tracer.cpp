#include "runtime/telemetry/tracer.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "runtime/telemetry/gen_ai_attributes.hpp"

namespace kaisha::telemetry {
namespace {

std::atomic<Tracer*> installed{nullptr};

// How long a command's end may wait for a collector that does not answer:
// the spans are worth a moment, not a hung exit.
constexpr std::chrono::milliseconds kFlushTimeout{3000};

// Room for a model call's attributes (the most any span here sets), so that
// setting them does not grow the vector four times.
constexpr size_t kTypicalAttributes = 12;

}  // namespace

Tracer* tracer() { return installed.load(std::memory_order_acquire); }

void install_tracer(std::unique_ptr<Tracer> t) {
  // Kept until exit: an actor may have loaded the previous pointer.
  static std::mutex mu;
  static std::vector<std::unique_ptr<Tracer>> kept;
  std::lock_guard<std::mutex> lock(mu);
  if (Tracer* old = installed.load()) old->exporter().flush(kFlushTimeout);
  installed.store(t.get(), std::memory_order_release);
  if (t) kept.push_back(std::move(t));
}

void flush_tracer() {
  if (Tracer* t = tracer()) t->exporter().flush(kFlushTimeout);
}

TraceContext task_trace(std::string_view task_id) { return derived_context(task_id); }

Span begin_span(std::string name, SpanKind kind, std::string_view parent, std::string_view task_id) {
  Span s;
  if (!tracer()) return s;
  std::optional<TraceContext> p = parent.empty() ? std::nullopt : parse_traceparent(parent);
  if (!p && task_id.empty()) return s;  // belongs to no trace we know
  TraceContext under = p ? std::move(*p) : task_trace(task_id);
  s.trace_id = std::move(under.trace_id);
  s.parent_span_id = std::move(under.span_id);
  s.span_id = new_span_id();
  s.attributes.reserve(kTypicalAttributes);
  s.name = std::move(name);
  s.kind = kind;
  s.start_unix_ns = now_unix_ns();
  if (!task_id.empty()) s.set(attr::kKaishaTaskId, task_id);
  return s;
}

std::string span_parent(std::string_view parent, std::string_view task_id) {
  if (!tracer()) return "";
  if (!parent.empty()) return std::string(parent);
  if (task_id.empty()) return "";
  return format_traceparent(task_trace(task_id));
}

Span begin_root_span(std::string name, std::string_view task_id) {
  Span s;
  if (!tracer() || task_id.empty()) return s;
  TraceContext root = task_trace(task_id);
  s.trace_id = std::move(root.trace_id);
  s.span_id = std::move(root.span_id);
  s.attributes.reserve(kTypicalAttributes);
  s.name = std::move(name);
  s.kind = SpanKind::server;
  s.start_unix_ns = now_unix_ns();
  s.set(attr::kKaishaTaskId, task_id);
  return s;
}

std::string traceparent_of(const Span& span) {
  if (span.span_id.empty()) return "";
  TraceContext c;
  c.trace_id = span.trace_id;
  c.span_id = span.span_id;
  return format_traceparent(c);
}

void end_span(Span& span, SpanStatus status, std::string message) {
  if (span.span_id.empty()) return;
  Tracer* t = tracer();
  if (!t) return;
  span.end_unix_ns = now_unix_ns();
  span.status = status;
  span.status_message = std::move(message);
  t->record(std::move(span));
  span.span_id.clear();  // recorded once
}

}  // namespace kaisha::telemetry
