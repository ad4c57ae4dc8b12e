#include "runtime/core/json_parse_error.hpp"

#include <string_view>

namespace kaisha {

std::string json_parse_error_reason(const json::exception& e) {
  std::string_view what = e.what();
  if (size_t p = what.find("] "); p != std::string_view::npos) what.remove_prefix(p + 2);
  if (what.rfind("parse error", 0) == 0) {
    if (size_t p = what.find(": "); p != std::string_view::npos) what.remove_prefix(p + 2);
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(what.size());
  for (char ch : what) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace kaisha
