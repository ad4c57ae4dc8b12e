#include "runtime/core/bounded_json.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "runtime/core/json_parse_error.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha {
namespace {

// Line and column (both 1-based) of the 0-based offset `at`.
std::pair<size_t, size_t> line_column(std::string_view text, size_t at) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < std::min(at, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// The 0-based offset of the first '[' or '{' nested deeper than max_depth,
// or npos. A linear scan that tracks strings as the parser does: outside a
// string every '"' opens one, inside it a backslash escapes the next byte.
// Where the two could disagree (a control byte in a string) the parser
// stops with a syntax error, so the scan's depth bounds what gets built.
size_t too_deep_at(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

std::string at_text(size_t line, size_t column) {
  return "at line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

BoundedJson parse_bounded_json(std::string_view text, const JsonLimits& limits) {
  BoundedJson out;
  auto& e = out.error;
  if (text.size() > limits.max_bytes) {
    e.kind = JsonParseError::Kind::too_large;
    e.message = "JSON text of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                std::to_string(limits.max_bytes) + " bytes";
    return out;
  }
  if (size_t at = too_deep_at(text, limits.max_depth); at != std::string_view::npos) {
    e.kind = JsonParseError::Kind::too_deep;
    std::tie(e.line, e.column) = line_column(text, at);
    e.byte = at + 1;
    e.message = "nesting deeper than " + std::to_string(limits.max_depth) + " levels " + at_text(e.line, e.column);
    return out;
  }
  // The UTF-8 boundary for bodies from outside (utf8.hpp): an ill-formed
  // sequence in a string becomes U+FFFD instead of failing the whole text.
  // Repair never touches the ASCII bytes the two checks above count.
  std::string repaired;
  if (!utf8::valid(text)) {
    repaired = utf8::repair(text);
    text = repaired;
  }
  try {
    out.value = json::parse(text);
    out.ok = true;
  } catch (const json::parse_error& x) {
    e.kind = JsonParseError::Kind::syntax;
    e.byte = x.byte;
    std::tie(e.line, e.column) = line_column(text, x.byte == 0 ? 0 : x.byte - 1);
    e.message = "not valid JSON " + at_text(e.line, e.column) + ": " + json_parse_error_reason(x);
  } catch (const json::exception& x) {  // out_of_range: a number beyond a double, e.g. 1e400
    e.kind = JsonParseError::Kind::syntax;
    e.message = "not valid JSON: " + json_parse_error_reason(x);
  } catch (const std::exception&) {
    e.kind = JsonParseError::Kind::syntax;
    e.message = "not valid JSON";
  }
  return out;
}

json parse_json_or_discarded(std::string_view text, const JsonLimits& limits) {
  BoundedJson r = parse_bounded_json(text, limits);
  return r.ok ? std::move(r.value) : json(json::value_t::discarded);
}

}  // namespace kaisha
