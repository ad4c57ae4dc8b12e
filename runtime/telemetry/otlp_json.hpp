// Spans as OTLP/HTTP JSON: the ExportTraceServiceRequest an OpenTelemetry
// collector accepts at POST /v1/traces with Content-Type: application/json,
// and the line format of kaisha's trace files (one request per line).
//
// The mapping is proto3's JSON mapping with OTLP's deviations
// (opentelemetry-proto docs/specification.md, "JSON Protobuf Encoding"):
//   - traceId / spanId / parentSpanId are hex strings, not base64;
//   - enums (span kind, status code) are integers, never their names;
//   - 64-bit integers (timestamps, intValue) are decimal strings;
//   - keys are lowerCamelCase; a receiver ignores keys it does not know.
//
//   {"resourceSpans": [{
//     "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "kaisha"}}, ...]},
//     "scopeSpans": [{
//       "scope": {"name": "kaisha", "version": "0.1.0"},
//       "spans": [{"traceId": "5b8e...", "spanId": "eee1...", "parentSpanId": "eee1...",
//                  "name": "chat gpt-4o", "kind": 3,
//                  "startTimeUnixNano": "1544712660000000000", "endTimeUnixNano": "...",
//                  "attributes": [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}}],
//                  "status": {"code": 1}}]}]}]}
//
// Every function here is pure and safe to call from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/telemetry/span.hpp"

namespace kaisha::telemetry {

// service.name of every resource and the instrumentation scope's name.
inline constexpr const char* kServiceName = "kaisha";
inline constexpr const char* kScopeName = "kaisha";

// kaisha's version, the scope's version (the project's CMake VERSION).
const char* kaisha_version();

// The OTLP integers of SpanKind (SPAN_KIND_INTERNAL = 1 ... CONSUMER = 5) and
// of SpanStatus (STATUS_CODE_UNSET = 0, OK = 1, ERROR = 2).
int otlp_kind(SpanKind kind);
int otlp_status_code(SpanStatus status);

// The request for one batch: one resourceSpans entry whose resource says
// service.name "kaisha" and, when the batch has a node, service.instance.id and
// kaisha.node set to it; one scopeSpans entry (scope "kaisha", kaisha_version())
// holding the spans in order. A batch without spans gives {"resourceSpans": []}
// (OTLP asks senders not to send empty envelopes).
//
// Timestamps below zero are written as "0" (OTLP's are unsigned). A double that
// is NaN or infinite is written "NaN" / "Infinity" / "-Infinity", as proto3's
// JSON mapping does (JSON has no such numbers).
json otlp_trace_request(const SpanBatch& batch);

// otlp_trace_request() as one line of JSON text (no newline). Text that is not
// valid UTF-8 is written with U+FFFD instead of failing (see dump_text).
std::string encode_otlp_json(const SpanBatch& batch);

// Reads an ExportTraceServiceRequest back: one SpanBatch per resourceSpans
// entry, the spans of all its scopeSpans in order, the node from the resource's
// kaisha.node or else service.instance.id. Follows the same mapping leniently
// where OTLP says a receiver must: hex ids in either case (returned lowercase),
// 64-bit integers as strings or numbers, absent fields as their defaults (kind
// 0 or absent reads as internal), unknown keys ignored.
//
// Fails with code "otlp" and a message naming the field, e.g.
// "resourceSpans[0].scopeSpans[0].spans[3].traceId: expected 32 hex digits, got
// \"abc\"", on: text that is not JSON; a field of the wrong JSON type; an id of
// the wrong length, not hex, or all zero; a missing traceId or spanId; a kind
// or status code outside the enum; an attribute value that is not exactly one
// of stringValue / intValue / doubleValue / boolValue (array, kvlist and bytes
// values are not supported); a timestamp or intValue out of int64 range.
Result<std::vector<SpanBatch>> decode_otlp_json(std::string_view text);
Result<std::vector<SpanBatch>> decode_otlp_request(const json& request);

// A trace file: one request per line (as SpanExporter writes it), blank lines
// skipped. The batches of every line in file order; an error names the 1-based
// line first ("line 3: resourceSpans[0]...").
Result<std::vector<SpanBatch>> decode_otlp_jsonl(std::string_view text);

}  // namespace kaisha::telemetry
