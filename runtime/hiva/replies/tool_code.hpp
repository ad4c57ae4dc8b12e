// Tool code from the tool synthesis and refinement replies (Figs. 12, 13).
// What the code may do is validate_tool_source's business
// (tool_validation.hpp).
#pragma once

#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

// The code of a ```python block (also ```py, ```python3, or an untagged
// fence): the block that defines tool_function when there are several,
// else the first. An unclosed block (a reply cut off) gives the text after
// its fence, with a problem. Without a fence the whole reply, trimmed, with
// a problem. Line ends are LF. Invalid UTF-8 is refused rather than
// repaired — code with U+FFFD in it is not the code the model meant —: the
// value is then empty, `defaulted`, and the problem says where.
Parsed<std::string> parse_tool_code(std::string_view reply);

}  // namespace kaisha::hiva
