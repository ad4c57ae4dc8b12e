// ASCII whitespace: ' ', '\t', '\n', '\v', '\f' and '\r', what std::isspace
// says in the C locale, without the locale and without std::isspace's
// undefined behaviour for a negative char. A UTF-8 byte (>= 0x80) is never
// space.
#pragma once

namespace kaisha {

inline bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace kaisha
