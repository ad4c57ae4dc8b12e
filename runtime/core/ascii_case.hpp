// ASCII lower-casing, for the case-insensitive words of protocols, formats
// and configuration: HTTP header names and media types, URL schemes and
// hosts, YAML booleans, enum words, keywords.
//
// ASCII only, by design: 'A'..'Z' become 'a'..'z' and every other byte is
// left as it is — UTF-8 bytes (>= 0x80) included — whatever the C locale.
// It is not a Unicode case mapping: "É" stays "É".
#pragma once

#include <string>
#include <string_view>

namespace kaisha {

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace kaisha
