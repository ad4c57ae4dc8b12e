// Parsing JSON that came from outside the process (request bodies, peers'
// answers, event-stream data) under one size and nesting limit.
//
// nlohmann's parser is iterative, but copying, comparing and dumping a value
// recurse once per nesting level: a 200 KB body nested 100,000 deep parses
// fine and then overflows the stack on its first copy. parse_bounded_json
// refuses such a text before anything is built, so no value deeper than
// max_depth ever exists. Every JSON body the protocol servers and clients
// read goes through here, so this is also where such text becomes UTF-8:
// ill-formed sequences are replaced with U+FFFD (runtime/core/utf8.hpp)
// before parsing, and a syntax error's position counts the repaired text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha {

struct JsonLimits {
  size_t max_bytes = 4u << 20;  // larger texts are refused unread
  size_t max_depth = 128;       // nesting of arrays and objects
};

// Why a text was refused, with the 1-based position of the offending byte
// (0 for a size refusal).
struct JsonParseError {
  enum class Kind { too_large, too_deep, syntax };
  Kind kind = Kind::syntax;
  std::string message;  // "nesting deeper than 128 levels at line 1, column 129", ...
  size_t line = 0;
  size_t column = 0;
  size_t byte = 0;
};

// The parsed value, or the error. Never throws.
struct BoundedJson {
  json value;
  bool ok = false;
  JsonParseError error;
};

BoundedJson parse_bounded_json(std::string_view text, const JsonLimits& limits = {});

// Drop-in for json::parse(text, nullptr, false): the value, or a discarded
// value (is_discarded()) when the text is not JSON or breaks the limits.
json parse_json_or_discarded(std::string_view text, const JsonLimits& limits = {});

}  // namespace kaisha
