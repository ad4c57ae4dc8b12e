#include "runtime/company/tool_error_class.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace kaisha::company {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_any(const std::string& text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

std::optional<ToolErrorClass> declared(const json& j) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("error_class");
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return parse_tool_error_class(it->get<std::string>());
}

// HiVA's run kinds and the like: a sandboxed run that was killed or crashed
// may do better on a second try; an exception the code raised will not.
std::optional<ToolErrorClass> from_kind(const json& output) {
  if (!output.is_object()) return std::nullopt;
  auto it = output.find("kind");
  if (it == output.end() || !it->is_string()) return std::nullopt;
  const std::string k = it->get<std::string>();
  if (k == "timeout") return ToolErrorClass::timeout;
  if (k == "crash" || k == "limit" || k == "sandbox") return ToolErrorClass::transient;
  if (k == "tool_error" || k == "protocol") return ToolErrorClass::permanent;
  return std::nullopt;
}

}  // namespace

std::string_view tool_error_class_name(ToolErrorClass c) {
  switch (c) {
    case ToolErrorClass::invalid_input:
      return "invalid_input";
    case ToolErrorClass::timeout:
      return "timeout";
    case ToolErrorClass::transient:
      return "transient";
    case ToolErrorClass::permanent:
      return "permanent";
  }
  return "permanent";
}

std::optional<ToolErrorClass> parse_tool_error_class(std::string_view name) {
  for (ToolErrorClass c :
       {ToolErrorClass::invalid_input, ToolErrorClass::timeout, ToolErrorClass::transient, ToolErrorClass::permanent})
    if (tool_error_class_name(c) == name) return c;
  return std::nullopt;
}

std::optional<ToolErrorClass> classify_tool_error(const ToolResult& r) {
  if (r.ok) return std::nullopt;
  if (auto c = declared(r.extra)) return c;
  if (auto c = declared(r.output)) return c;
  if (auto c = from_kind(r.output)) return c;
  std::string text = lower(r.message);
  if (r.output.is_string()) text += " " + lower(r.output.get<std::string>());
  if (has_any(text, {"timed out", "timeout", "time limit", "deadline exceeded"})) return ToolErrorClass::timeout;
  if (has_any(text, {"temporarily", "temporary", "unavailable", "try again", "rate limit", "too many requests",
                     "connection refused", "connection reset", "http 429", "http 502", "http 503", "http 504",
                     "status 429", "status 502", "status 503", "status 504", "eagain", "busy"}))
    return ToolErrorClass::transient;
  if (has_any(text, {"invalid argument", "invalid input", "invalid param", "not valid json", "arguments must be",
                     "missing required", "is not granted", "not found", "unknown tool"}))
    return ToolErrorClass::invalid_input;
  return ToolErrorClass::permanent;
}

ToolResult with_error_class(ToolResult r, ToolErrorClass c) {
  if (!r.extra.is_object()) r.extra = json::object();
  r.extra["error_class"] = std::string(tool_error_class_name(c));
  return r;
}

}  // namespace kaisha::company
