// Trimming ASCII whitespace (space, \t, \n, \v, \f, \r), the one definition
// of "surrounding whitespace" the answer comparisons share.
#pragma once

#include <string_view>

namespace kaisha::answers {

inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace kaisha::answers
