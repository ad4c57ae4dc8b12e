// What kind of failure a tool's error result is, so that a caller knows
// whether trying again can help (effgen.md §9.4, "Tools that fail"):
//   invalid_input  the call itself was wrong (arguments, grant, an unknown
//                  tool): the model must change it; never retried, and not
//                  counted against the tool's health.
//   timeout        the call ran out of time: not retried (it may still be
//                  doing what it was asked), counted against the tool.
//   transient      the tool or what it depends on is briefly unavailable
//                  (a connection refused or reset, a rate limit, HTTP 429 or
//                  5xx, "try again"): retried when the tool is safe to repeat.
//   permanent      anything else: the same call fails again.
// A source may say the class itself with "error_class" in the result's
// top level (ToolResult::extra) or its output object; otherwise the error's
// text decides, by the words above (case-insensitive).
#pragma once

#include <optional>
#include <string_view>

#include "runtime/company/tool_result.hpp"

namespace kaisha::company {

enum class ToolErrorClass { invalid_input, timeout, transient, permanent };

// "invalid_input", "timeout", "transient", "permanent".
std::string_view tool_error_class_name(ToolErrorClass c);
std::optional<ToolErrorClass> parse_tool_error_class(std::string_view name);

// The class of `r`; nullopt when `r` is not an error.
std::optional<ToolErrorClass> classify_tool_error(const ToolResult& r);

// Marks `r` as of class `c` (what classify_tool_error reads first).
ToolResult with_error_class(ToolResult r, ToolErrorClass c);

}  // namespace kaisha::company
