// Reading a task suite: a JSONL text, one task (a JSON object) per line, into
// SuiteItems (docs/suites.md is the user's reference).
//
// The whole text is checked before anything is returned, so a run never
// starts (and never spends) on a suite with a bad line. Accepted: blank
// lines and lines whose first non-blank character is '#' (skipped), CRLF line
// ends, a UTF-8 byte order mark at the start of a line (files joined with
// cat keep theirs). Refused, each error as
// FILE:LINE: what (lines counted from 1, comments and blanks included):
// ill-formed UTF-8, a line that is not one JSON object, a missing or
// mistyped field, an unknown field or format, a duplicate id, a line or
// file over its size limit, a suite with no task.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/suite/suite_item.hpp"

namespace kaisha::suite {

struct SuiteLimits {
  size_t max_file_bytes = 64u << 20;  // the whole text
  size_t max_line_bytes = 4u << 20;   // one task, its line end excluded
  size_t max_items = 100000;
  size_t max_depth = 64;  // JSON nesting (metadata, turns)
};

// At most this many errors are listed; the message then counts the rest.
inline constexpr size_t kMaxListedErrors = 10;

// The tasks in file order, or Error{"suite", ...} listing the first
// kMaxListedErrors errors, one per line, e.g.
//   tasks.jsonl:3: "input": expected a string, got a number
//   tasks.jsonl:9: "id": "q1" is already the id of line 4
//   (and 2 more errors)
// `file_name` is only used in messages.
Result<std::vector<SuiteItem>> parse_suite(std::string_view jsonl, const std::string& file_name,
                                           const SuiteLimits& limits = {});

}  // namespace kaisha::suite
