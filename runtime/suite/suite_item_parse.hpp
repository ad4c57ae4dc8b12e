// One line of a suite, already parsed as JSON, checked and read into a
// SuiteItem (the rules are docs/suites.md's; suite_parse.hpp adds the file
// and line to the message).
#pragma once

#include <cstddef>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::suite {

inline constexpr size_t kMaxIdBytes = 200;

// Error code "suite", the message naming the field and what is wrong with
// it, e.g. "input": expected a string, got a number. `line` makes the
// default id "line-N".
Result<SuiteItem> parse_suite_item(const json& line_value, size_t line);

}  // namespace kaisha::suite
