// Writing JSON text by hand, for the few hot paths where building an
// nlohmann::json tree only to print it costs more than the work it
// describes (spans on their way to a collector). The output is what
// dump_text() would write for the same string: valid UTF-8, with bytes that
// are not UTF-8 replaced by U+FFFD.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha {

// Appends `v` in decimal.
void append_json_integer(std::string& out, int64_t v);

// Appends `text` as a quoted JSON string: `"`, `\` and control characters
// escaped, invalid UTF-8 replaced by U+FFFD.
void append_json_string(std::string& out, std::string_view text);

// Appends `value` as dump_text(value) would write it: byte for byte, but
// for the rare double whose shortest spelling nlohmann does not find (the
// same number, written shorter).
void append_json(std::string& out, const json& value);

}  // namespace kaisha
