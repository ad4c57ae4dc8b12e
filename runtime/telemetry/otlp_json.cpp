#include "runtime/telemetry/otlp_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/core/json_parse_error.hpp"
#include "runtime/core/json_string.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/telemetry/trace_context.hpp"

#ifndef KAISHA_VERSION
#define KAISHA_VERSION "0.0.0"
#endif

namespace kaisha::telemetry {
using namespace std::string_view_literals;
namespace {

// ---- encoding ----

// A double attribute's value. proto3's JSON mapping spells NaN and the
// infinities as strings (a JSON writer would put null, losing the type).
void append_double_value(std::string& out, double d) {
  out += R"({"doubleValue":)";
  if (std::isnan(d))
    out += R"("NaN")";
  else if (std::isinf(d))
    out += d > 0 ? R"("Infinity")" : R"("-Infinity")";
  else
    append_json(out, json(d));
  out += '}';
}

// ---- decoding ----

// Thrown inside the decoder only, caught in decode_otlp_request(): every
// check is one line instead of an early return through four levels.
struct DecodeError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw DecodeError{path + ": " + what}; }

// A short, valid-UTF-8 rendering of a value for an error message.
std::string shown(const json& v) { return utf8::shorten(dump_text(v), 80); }

const json* member(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;  // proto3: null means "not set"
  return &*it;
}

const json& expect_object(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, "expected an object, got " + shown(v));
  return v;
}

// An optional array member; empty when absent.
const json& array_member(const json& obj, const char* key, const std::string& path) {
  static const json kEmpty = json::array();
  const json* v = member(obj, key);
  if (!v) return kEmpty;
  if (!v->is_array()) fail(path + "." + key, "expected an array, got " + shown(*v));
  return *v;
}

std::string string_member(const json& obj, const char* key, const std::string& path) {
  const json* v = member(obj, key);
  if (!v) return "";
  if (!v->is_string()) fail(path + "." + key, "expected a string, got " + shown(*v));
  return v->get<std::string>();
}

// proto3 writes 64-bit integers as decimal strings and reads either form.
int64_t int64_of(const json& v, const std::string& path, bool non_negative) {
  int64_t out = 0;
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    out = v.get<int64_t>();
  } else if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail(path, "out of range: " + shown(v));
    out = static_cast<int64_t>(u);
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    if (ec == std::errc::result_out_of_range) fail(path, "out of range: " + shown(v));
    if (s.empty() || ec != std::errc() || ptr != end) fail(path, "expected a decimal integer, got " + shown(v));
  } else {
    fail(path, "expected an integer (a decimal string), got " + shown(v));
  }
  if (non_negative && out < 0) fail(path, "expected a non-negative integer, got " + shown(v));
  return out;
}

int enum_member(const json& obj, const char* key, const std::string& path, int max) {
  const json* v = member(obj, key);
  if (!v) return 0;
  // OTLP forbids enum names in JSON; say so instead of "expected an integer".
  if (v->is_string())
    fail(path + "." + key, "expected the enum's integer value (OTLP JSON never uses names), got " + shown(*v));
  if (!v->is_number_integer()) fail(path + "." + key, "expected an integer, got " + shown(*v));
  const int64_t n = v->get<int64_t>();
  if (n < 0 || n > max)
    fail(path + "." + key, "expected an integer from 0 to " + std::to_string(max) + ", got " + shown(*v));
  return static_cast<int>(n);
}

// A hex id of `digits` digits, either case (RFC 4648 base16 is
// case-insensitive), returned lowercase.
std::string hex_id(const json& obj, const char* key, const std::string& path, size_t digits, bool required) {
  const json* v = member(obj, key);
  const std::string where = path + "." + key;
  if (!v || (v->is_string() && v->get_ref<const std::string&>().empty())) {
    if (required) fail(where, "is required");
    return "";
  }
  if (!v->is_string()) fail(where, "expected a hex string, got " + shown(*v));
  std::string id = v->get<std::string>();
  for (char& c : id)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  if (id.size() != digits || !valid_hex_id(id, digits)) {
    const bool hex = id.size() == digits && id.find_first_not_of("0123456789abcdef") == std::string::npos;
    fail(where,
         hex ? "an all-zero id is invalid" : "expected " + std::to_string(digits) + " hex digits, got " + shown(*v));
  }
  return id;
}

AttributeValue decode_value(const json& v, const std::string& path) {
  expect_object(v, path);
  const char* found = nullptr;
  for (const char* key :
       {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"}) {
    if (!member(v, key)) continue;
    if (found) fail(path, std::string("has both ") + found + " and " + key + "; an AnyValue holds one");
    found = key;
  }
  if (!found) fail(path, "expected one of stringValue, intValue, doubleValue, boolValue, got " + shown(v));
  const std::string where = path + "." + found;
  const json& x = v.at(found);
  const std::string_view kind = found;
  if (kind == "stringValue") {
    if (!x.is_string()) fail(where, "expected a string, got " + shown(x));
    return x.get<std::string>();
  }
  if (kind == "intValue") return int64_of(x, where, false);
  if (kind == "boolValue") {
    if (!x.is_boolean()) fail(where, "expected true or false, got " + shown(x));
    return x.get<bool>();
  }
  if (kind == "doubleValue") {
    if (x.is_number()) return x.get<double>();
    if (x.is_string()) {
      const std::string& s = x.get_ref<const std::string&>();
      if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    fail(where, "expected a number, got " + shown(x));
  }
  fail(where, "is not supported by kaisha (only string, int, double and bool attribute values)");
}

std::vector<Attribute> decode_attributes(const json& obj, const std::string& path) {
  std::vector<Attribute> out;
  const json& list = array_member(obj, "attributes", path);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = path + ".attributes[" + std::to_string(i) + "]";
    const json& kv = expect_object(list[i], p);
    const json* value = member(kv, "value");
    if (!value) fail(p + ".value", "is required");
    out.push_back({string_member(kv, "key", p), decode_value(*value, p + ".value")});
  }
  return out;
}

Span decode_span(const json& v, const std::string& path) {
  expect_object(v, path);
  Span s;
  s.trace_id = hex_id(v, "traceId", path, 32, true);
  s.span_id = hex_id(v, "spanId", path, 16, true);
  s.parent_span_id = hex_id(v, "parentSpanId", path, 16, false);
  s.name = string_member(v, "name", path);
  // SPAN_KIND_UNSPECIFIED (0) may be read as INTERNAL (trace.proto).
  static constexpr SpanKind kKinds[] = {SpanKind::internal, SpanKind::internal, SpanKind::server,
                                        SpanKind::client,   SpanKind::producer, SpanKind::consumer};
  s.kind = kKinds[enum_member(v, "kind", path, 5)];
  if (const json* t = member(v, "startTimeUnixNano")) s.start_unix_ns = int64_of(*t, path + ".startTimeUnixNano", true);
  if (const json* t = member(v, "endTimeUnixNano")) s.end_unix_ns = int64_of(*t, path + ".endTimeUnixNano", true);
  s.attributes = decode_attributes(v, path);
  if (const json* st = member(v, "status")) {
    const std::string p = path + ".status";
    expect_object(*st, p);
    static constexpr SpanStatus kStatus[] = {SpanStatus::unset, SpanStatus::ok, SpanStatus::error};
    s.status = kStatus[enum_member(*st, "code", p, 2)];
    s.status_message = string_member(*st, "message", p);
  }
  return s;
}

SpanBatch decode_resource_spans(const json& v, const std::string& path) {
  expect_object(v, path);
  SpanBatch batch;
  if (const json* r = member(v, "resource")) {
    const std::string p = path + ".resource";
    expect_object(*r, p);
    std::string instance;
    for (const Attribute& a : decode_attributes(*r, p)) {
      const auto* s = std::get_if<std::string>(&a.value);
      if (!s) continue;
      if (a.key == "kaisha.node") batch.node = *s;
      if (a.key == "service.instance.id") instance = *s;
    }
    if (batch.node.empty()) batch.node = instance;
  }
  const json& scopes = array_member(v, "scopeSpans", path);
  for (size_t i = 0; i < scopes.size(); ++i) {
    const std::string p = path + ".scopeSpans[" + std::to_string(i) + "]";
    const json& spans = array_member(expect_object(scopes[i], p), "spans", p);
    for (size_t j = 0; j < spans.size(); ++j)
      batch.spans.push_back(decode_span(spans[j], p + ".spans[" + std::to_string(j) + "]"));
  }
  return batch;
}

}  // namespace

const char* kaisha_version() { return KAISHA_VERSION; }

int otlp_kind(SpanKind kind) {
  switch (kind) {
    case SpanKind::internal:
      return 1;
    case SpanKind::server:
      return 2;
    case SpanKind::client:
      return 3;
    case SpanKind::producer:
      return 4;
    case SpanKind::consumer:
      return 5;
  }
  return 1;
}

int otlp_status_code(SpanStatus status) {
  switch (status) {
    case SpanStatus::unset:
      return 0;
    case SpanStatus::ok:
      return 1;
    case SpanStatus::error:
      return 2;
  }
  return 0;
}

json otlp_trace_request(const SpanBatch& batch) { return json::parse(encode_otlp_json(batch)); }

// Written directly, not through a json tree: an exporter encodes every span
// of every task, and building the tree cost several times the writing.
std::string encode_otlp_json(const SpanBatch& batch) {
  if (batch.spans.empty()) return R"({"resourceSpans":[]})";
  std::string out;
  // Sized once: a span's fixed text is under 400 bytes, the rest is its own.
  size_t size = 512;
  for (const Span& s : batch.spans) {
    size += 400 + s.name.size() + s.status_message.size();
    for (const auto& a : s.attributes) {
      size += 48 + a.key.size();
      if (const auto* text = std::get_if<std::string>(&a.value)) size += text->size() + text->size() / 8;
    }
  }
  out.reserve(size);
  auto string_attr = [&](std::string_view k, std::string_view v) {
    out += R"({"key":)"sv;
    append_json_string(out, k);
    out += R"(,"value":{"stringValue":)"sv;
    append_json_string(out, v);
    out += "}}"sv;
  };
  out += R"({"resourceSpans":[{"resource":{"attributes":[)"sv;
  string_attr("service.name", kServiceName);
  if (!batch.node.empty()) {
    out += ',';
    string_attr("service.instance.id", batch.node);
    out += ',';
    string_attr("kaisha.node", batch.node);
  }
  out += R"(]},"scopeSpans":[{"scope":{"name":)"sv;
  append_json_string(out, kScopeName);
  out += R"(,"version":)"sv;
  append_json_string(out, kaisha_version());
  out += R"(},"spans":[)"sv;
  bool first_span = true;
  for (const Span& s : batch.spans) {
    if (!first_span) out += ',';
    first_span = false;
    out += '{';
    out += R"("traceId":)"sv;
    append_json_string(out, s.trace_id);
    out += ',';
    out += R"("spanId":)"sv;
    append_json_string(out, s.span_id);
    // proto3 leaves an empty field out; a root span has no parent.
    if (!s.parent_span_id.empty()) {
      out += ',';
      out += R"("parentSpanId":)"sv;
      append_json_string(out, s.parent_span_id);
    }
    out += ',';
    out += R"("name":)"sv;
    append_json_string(out, s.name);
    out += ',';
    out += R"("kind":)"sv;
    append_json_integer(out, otlp_kind(s.kind));
    out += R"(,"startTimeUnixNano":")"sv;
    append_json_integer(out, s.start_unix_ns < 0 ? 0 : s.start_unix_ns);
    out += R"(","endTimeUnixNano":")"sv;
    append_json_integer(out, s.end_unix_ns < 0 ? 0 : s.end_unix_ns);
    out += R"(",)"sv;
    out += R"("attributes":)"sv;
    out += '[';
    bool first_attr = true;
    for (const auto& a : s.attributes) {
      if (!first_attr) out += ',';
      first_attr = false;
      if (const auto* text = std::get_if<std::string>(&a.value)) {
        string_attr(a.key, *text);
        continue;
      }
      out += R"({"key":)"sv;
      append_json_string(out, a.key);
      out += R"(,"value":)"sv;
      if (const auto* i = std::get_if<int64_t>(&a.value)) {
        out += R"({"intValue":")"sv;  // proto3: 64-bit integers as strings
        append_json_integer(out, *i);
        out += "\"}"sv;
      } else if (const auto* b = std::get_if<bool>(&a.value)) {
        out += *b ? R"({"boolValue":true})"sv : R"({"boolValue":false})"sv;
      } else {
        append_double_value(out, std::get<double>(a.value));
      }
      out += '}';
    }
    out += "],"sv;
    out += R"("status":)"sv;
    out += R"({"code":)"sv;
    append_json_integer(out, otlp_status_code(s.status));
    if (!s.status_message.empty()) {
      out += R"(,"message":)"sv;
      append_json_string(out, s.status_message);
    }
    out += "}}"sv;
  }
  out += "]}]}]}"sv;
  return out;
}

Result<std::vector<SpanBatch>> decode_otlp_request(const json& request) {
  try {
    if (!request.is_object()) fail("request", "expected an ExportTraceServiceRequest object, got " + shown(request));
    std::vector<SpanBatch> out;
    const json& resources = array_member(request, "resourceSpans", "request");
    for (size_t i = 0; i < resources.size(); ++i)
      out.push_back(decode_resource_spans(resources[i], "resourceSpans[" + std::to_string(i) + "]"));
    return out;
  } catch (const DecodeError& e) {
    return Error{"otlp", e.message};
  }
}

Result<std::vector<SpanBatch>> decode_otlp_json(std::string_view text) {
  json request;
  try {
    request = json::parse(text);
  } catch (const json::exception& e) {
    return Error{"otlp", "not JSON: " + json_parse_error_reason(e)};
  }
  return decode_otlp_request(request);
}

Result<std::vector<SpanBatch>> decode_otlp_jsonl(std::string_view text) {
  std::vector<SpanBatch> out;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto batches = decode_otlp_json(line);
    if (!batches) return Error{"otlp", "line " + std::to_string(line_number) + ": " + batches.error().message};
    for (auto& b : *batches) out.push_back(std::move(b));
  }
  return out;
}

}  // namespace kaisha::telemetry
