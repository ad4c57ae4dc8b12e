// Calculator: evaluates one arithmetic expression written in a small,
// whitelisted subset of Python expression syntax (effgen.md §9.3, §23 item
// 29). Nothing is ever handed to an interpreter: the text is parsed here and
// only the constructs below are understood, so there is no way to reach
// files, processes, imports or attributes.
//
//   numbers (1, 2.5, 1e-3), True/False, lists [1, 2, 3]
//   + - * / // % **   unary + -   == != < <= > >= (chained)   and or not
//   abs min max sum round floor ceil  sin cos tan asin acos atan atan2
//   exp log log10 log2 pow sqrt  mean median variance stdev   pi e tau
//
// Anything else fails: a name that is not listed, attribute access, calls of
// anything but the functions above, assignment, import, lambda. Those are
// "security" errors (message "SecurityError: ..."); malformed text is
// "syntax"; math domain, division by zero and overflow are "math". Every
// message says where in the expression the problem is.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::tools {

struct CalcLimits {
  size_t max_length = 1000;  // characters of expression text
  int max_depth = 64;        // nesting of parentheses, calls and operators
  size_t max_list = 10000;   // elements of a list literal
};

// {"result": <number | bool | array>, "formatted": "<text>"}, e.g. for
// "(123 + 456) * 789 / 12": {"result": 38069.25, "formatted": "38069.25"}.
Result<json> calculate(const std::string& expression, const CalcLimits& limits = {});

}  // namespace kaisha::tools
