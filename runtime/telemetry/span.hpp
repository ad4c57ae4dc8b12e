// Span: one finished unit of work in a trace (an LLM call, a tool run, an
// agent's turn), as kaisha records it and the exporter sends it. A plain
// value: built by one thread, then moved into SpanExporter::record().
//
// The node a span comes from is not a span attribute: it is said once per
// batch, as a resource attribute (see SpanBatch and otlp_json.hpp), because
// every span of one process shares it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kaisha::telemetry {

// OTLP's SpanKind without UNSPECIFIED (a span kaisha makes always knows what
// it is). The OTLP integers are in otlp_json.cpp.
enum class SpanKind { internal, server, client, producer, consumer };

enum class SpanStatus { unset, ok, error };

// An attribute's value: OTLP's AnyValue restricted to the scalar types kaisha
// uses (stringValue, intValue, doubleValue, boolValue).
using AttributeValue = std::variant<std::string, int64_t, double, bool>;

struct Attribute {
  std::string key;
  AttributeValue value;
};

struct Span {
  std::string trace_id;        // 32 lowercase hex digits
  std::string span_id;         // 16 lowercase hex digits
  std::string parent_span_id;  // 16 lowercase hex digits, "" for a trace's root span
  std::string name;            // e.g. "chat gpt-4o" (see gen_ai_attributes.hpp)
  SpanKind kind = SpanKind::internal;
  int64_t start_unix_ns = 0;
  int64_t end_unix_ns = 0;
  std::vector<Attribute> attributes;  // in the order they were set; keys should be unique
  SpanStatus status = SpanStatus::unset;
  std::string status_message;  // only meaningful with SpanStatus::error

  // Appends an attribute, typed by the argument: text (std::string,
  // string_view, const char*) -> string, bool -> bool, any other integer ->
  // int64, floating point -> double. Spelling the conversion out here keeps a
  // string literal from silently becoming `true` through the variant.
  template <class T>
  Span& set(std::string key, T&& value) {
    using V = std::decay_t<T>;
    if constexpr (std::is_same_v<V, bool>) {
      attributes.push_back({std::move(key), AttributeValue(std::in_place_type<bool>, value)});
    } else if constexpr (std::is_integral_v<V>) {
      attributes.push_back({std::move(key), AttributeValue(std::in_place_type<int64_t>, static_cast<int64_t>(value))});
    } else if constexpr (std::is_floating_point_v<V>) {
      attributes.push_back({std::move(key), AttributeValue(std::in_place_type<double>, static_cast<double>(value))});
    } else {
      static_assert(std::is_convertible_v<T, std::string_view>,
                    "an attribute value is text, an integer, a double or a bool");
      attributes.push_back(
          {std::move(key), AttributeValue(std::in_place_type<std::string>, std::string(std::string_view(value)))});
    }
    return *this;
  }

  // The attribute named `key`, or nullptr.
  const AttributeValue* find(std::string_view key) const {
    for (const auto& a : attributes)
      if (a.key == key) return &a.value;
    return nullptr;
  }
};

// Spans from one kaisha node: the unit an OTLP request's resourceSpans entry holds.
struct SpanBatch {
  std::string node;  // the kaisha node's name ("" when it has none, e.g. a single process)
  std::vector<Span> spans;
};

// Nanoseconds since the Unix epoch (wall clock, as OTLP timestamps are).
inline int64_t now_unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline const char* to_string(SpanKind kind) {
  switch (kind) {
    case SpanKind::internal:
      return "internal";
    case SpanKind::server:
      return "server";
    case SpanKind::client:
      return "client";
    case SpanKind::producer:
      return "producer";
    case SpanKind::consumer:
      return "consumer";
  }
  return "internal";
}

inline const char* to_string(SpanStatus status) {
  switch (status) {
    case SpanStatus::unset:
      return "unset";
    case SpanStatus::ok:
      return "ok";
    case SpanStatus::error:
      return "error";
  }
  return "unset";
}

}  // namespace kaisha::telemetry
