#include "runtime/prompt/json_extract.hpp"

#include <string>

#include "runtime/core/json_parse_error.hpp"

namespace kaisha::planning {
namespace {

bool is_opener(char c, JsonTop top) { return c == '{' || (c == '[' && top == JsonTop::object_or_array); }

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  return i;
}

// One past the bracket that closes the value opening at `begin`, or npos when
// the answer ends first (a truncated answer; the parser then reports where).
size_t matching_end(std::string_view s, size_t begin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

Result<json> parse_region(std::string_view answer, size_t begin, size_t end) {
  std::string_view region = answer.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  try {
    return json::parse(region);
  } catch (const json::parse_error& e) {
    return Error{"json",
                 "JSON parse error at byte " + std::to_string(begin + e.byte) + ": " + json_parse_error_reason(e)};
  } catch (const json::exception& e) {  // out_of_range: a number beyond a double, e.g. 1e400
    return Error{"json", "JSON parse error in the value starting at byte " + std::to_string(begin + 1) + ": " +
                             json_parse_error_reason(e)};
  }
}

}  // namespace

Result<json> extract_json(std::string_view answer, JsonTop top) {
  // 1. A fenced block whose content is the expected value.
  for (size_t fence = answer.find("```"); fence != std::string_view::npos;) {
    size_t line_end = answer.find('\n', fence + 3);
    if (line_end == std::string_view::npos) break;
    size_t body = skip_space(answer, line_end + 1);
    size_t close = answer.find("```", line_end + 1);
    if (body < answer.size() && is_opener(answer[body], top) && (close == std::string_view::npos || body < close)) {
      // The value ends at its matching bracket; what follows up to the closing
      // fence must be blank, or the fence held more than one value.
      size_t end = matching_end(answer, body);
      if (end != std::string_view::npos && close != std::string_view::npos) {
        size_t after = skip_space(answer, end);
        if (after < close) {
          return Error{"json", "JSON parse error at byte " + std::to_string(after + 1) +
                                   ": unexpected text after the JSON value inside the ``` block"};
        }
      }
      return parse_region(answer, body, end);
    }
    if (close == std::string_view::npos) break;
    fence = answer.find("```", close + 3);
  }
  // 2. The first expected opening bracket, after any prose.
  for (size_t i = 0; i < answer.size(); ++i) {
    if (is_opener(answer[i], top)) return parse_region(answer, i, matching_end(answer, i));
  }
  if (skip_space(answer, 0) == answer.size()) return Error{"json", "the answer is empty; expected a JSON object"};
  return Error{"json", top == JsonTop::object ? "no JSON object found in the answer (expected one starting with '{')"
                                              : "no JSON object or array found in the answer"};
}

}  // namespace kaisha::planning
