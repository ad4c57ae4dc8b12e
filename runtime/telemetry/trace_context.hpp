// TraceContext: where a unit of work sits in a distributed trace, and its
// W3C Trace Context form (the `traceparent` header,
// https://www.w3.org/TR/trace-context/) for carrying it across process and
// node boundaries.
//
// A TraceContext is a plain value: copy it freely, share it between threads
// read-only. The id generators are safe to call from any thread (each thread
// has its own generator).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kaisha::telemetry {

struct TraceContext {
  std::string trace_id;  // 16 bytes as 32 lowercase hex digits, not all zero
  std::string span_id;   // 8 bytes as 16 lowercase hex digits, not all zero
  bool sampled = true;   // the traceparent's "sampled" flag (bit 0 of trace-flags)

  // A context with a fresh trace id and a fresh span id: the root of a new trace.
  static TraceContext new_root(bool sampled = true);

  // The context of a unit of work started under this one: the same trace and
  // sampling decision, a fresh span id. This context's span_id becomes the
  // child's parent span id (the caller keeps it for Span::parent_span_id).
  TraceContext child() const;

  // True when both ids have the right length, are lowercase hex and not all zero.
  bool valid() const;
};

// "00-<trace_id>-<span_id>-<flags>", flags "01" when sampled, "00" otherwise.
// The context is expected to be valid(); an invalid one is written as given.
std::string format_traceparent(const TraceContext& context);

// Reads a traceparent header value. Returns nullopt for anything W3C says to
// discard: a version that is not two lowercase hex digits or is "ff"; ids or
// flags of the wrong length or not lowercase hex; an all-zero trace or span id;
// missing or misplaced dashes. Version 00 must be exactly 55 characters; a
// later version may append fields after a dash (they are ignored, as W3C asks
// of a parser that knows only version 00). Surrounding spaces and tabs are
// trimmed (an HTTP header value may carry them).
std::optional<TraceContext> parse_traceparent(std::string_view header);

// Fresh random ids as lowercase hex, never all zero. They come from a
// thread-local std::mt19937_64 seeded from std::random_device: cheap and
// unique enough for tracing, not for anything that needs secrecy.
std::string new_trace_id();
std::string new_span_id();

// A context whose ids are derived from `seed` alone: the same seed gives the
// same trace and span ids in any process, on any node (FNV-1a, stable
// across builds; never all zero). For spans that must meet without being
// told each other's ids, such as a task's root (tracer.hpp).
TraceContext derived_context(std::string_view seed);

// True when `s` is `digits` lowercase hex digits, not all '0'.
bool valid_hex_id(std::string_view s, size_t digits);

}  // namespace kaisha::telemetry
