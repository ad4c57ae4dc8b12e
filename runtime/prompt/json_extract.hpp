// Finding the JSON in a model's answer. Small models wrap the JSON they were
// told to return alone in a ```json fence or put a sentence before it; both
// are tolerated. Nothing else is: no repair of trailing commas, quotes or
// truncation, because a guessed repair can silently change the plan — the
// caller sends the error text back to the model instead.
#pragma once

#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::planning {

enum class JsonTop { object, object_or_array };

// Where the JSON is taken from, in this order:
//  1. the first ``` fenced block (with or without a language tag) whose
//     content starts with the expected bracket;
//  2. otherwise the first expected opening bracket in the answer, up to its
//     matching closing bracket (brackets inside strings do not count).
// Text after the value is ignored. Errors (code "json") say what is wrong
// and where: the byte offset, counted from 1 in the whole answer, is the
// last byte the parser read — the end of the offending token — e.g.
// "JSON parse error at byte 71: syntax error while parsing object -
// unexpected string literal; expected '}'".
Result<json> extract_json(std::string_view answer, JsonTop top = JsonTop::object);

}  // namespace kaisha::planning
