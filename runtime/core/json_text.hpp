// JSON written out as text (stdout, the journal, a reply on the wire).
#pragma once

#include <string>

#include "runtime/core/json.hpp"

namespace kaisha {

// The text of `j`. Text is repaired where it enters kaisha
// (runtime/core/utf8.hpp); should an ill-formed byte still slip through, it
// is written as U+FFFD instead of dump() throwing type_error 316 in
// whichever actor or thread writes it.
inline std::string dump_text(const json& j, int indent = -1) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace kaisha
