// Describing a JSON parse error to whoever sent the text (a JSON-RPC peer, a
// model asked to fix its answer). Parsing throws json::parse_error for bad
// syntax and json::out_of_range for a number too large for a double (1e400),
// so callers catch json::exception, the base of both.
//
// nlohmann's parse_error text quotes the last bytes it read ("last read:
// '...'"), cut at any byte, so it can hold a partial or ill-formed UTF-8
// sequence even when the input was valid UTF-8; a message carrying it makes
// json::dump() throw when the error is sent back as JSON. Every parse error
// that reaches a message goes through here.
#pragma once

#include <string>

#include "runtime/core/json.hpp"

namespace kaisha {

// The reason part of e.what(), e.g. "syntax error while parsing value -
// invalid literal; last read: 'tru\xC3'" or "number overflow parsing
// '1e400'": without the library's "[json.exception...]" prefix and its
// "parse error at line L, column C: " position (callers state the position
// the way their reader counts it).
// Every byte outside ASCII is written as \xNN, so the text is always valid
// UTF-8 and the offending bytes stay visible.
std::string json_parse_error_reason(const json::exception& e);

}  // namespace kaisha
