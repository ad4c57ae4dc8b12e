#include "runtime/core/json_string.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/core/utf8.hpp"

namespace kaisha {
namespace {

void append_escaped(std::string& out, std::string_view text) {
  static const char* hex = "0123456789abcdef";
  size_t plain = 0;  // start of the run of bytes copied as they are
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xf];
    }
  }
  out.append(text.data() + plain, text.size() - plain);
}

// An integer in decimal, without a temporary string.
template <class Int>
void append_integer(std::string& out, Int v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(end - buf));
}

// A finite double as nlohmann writes it: the shortest digits that read back
// as the same value, in fixed notation for decimal exponents -4 to 15 (with
// ".0" when there is no fraction), else d.ddde±XX. Here the digits come from
// std::to_chars (exact shortest); nlohmann's own grisu2 may pick a longer
// spelling of the same value in rare cases, so the text can differ there,
// the number never. Avoids nlohmann's per-call serializer and localeconv().
void append_double(std::string& out, double x) {
  if (std::signbit(x)) {
    out += '-';
    x = -x;
  }
  // Whole numbers below 10^15 (most ledger figures): "<integer>.0".
  if (x < 1e15 && x == std::floor(x)) {
    append_integer(out, static_cast<int64_t>(x));
    out += ".0";
    return;
  }
  char buf[40];
  // Fixed notation's range (decimal exponents -4 to 14), not whole: the
  // shortest fixed spelling has the same digits, and needs no rearranging.
  if (x >= 1e-4 && x < 1e15) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed);
    if (ec == std::errc()) {
      out.append(buf, static_cast<size_t>(end - buf));
      return;
    }
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  if (ec != std::errc()) {
    out += json(x).dump();
    return;
  }
  // "d.ddde+XX": the digits without the point, and the exponent.
  const char* e = std::find(buf, end, 'e');
  char digits[24];
  int k = 0;
  for (const char* p = buf; p < e && k < 24; ++p)
    if (*p != '.') digits[k++] = *p;
  int exponent = 0;
  std::from_chars(e + 1 + (e[1] == '+'), end, exponent);
  const int n = exponent + 1;  // where the point goes, counted from the first digit
  if (k <= n && n <= 15) {
    out.append(digits, static_cast<size_t>(k));
    out.append(static_cast<size_t>(n - k), '0');
    out += ".0";
  } else if (0 < n && n <= 15) {
    out.append(digits, static_cast<size_t>(n));
    out += '.';
    out.append(digits + n, static_cast<size_t>(k - n));
  } else if (-4 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out.append(digits, static_cast<size_t>(k));
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits + 1, static_cast<size_t>(k - 1));
    }
    out += 'e';
    const int shown = n - 1;
    out += shown < 0 ? '-' : '+';
    const int abs_shown = shown < 0 ? -shown : shown;
    if (abs_shown < 10) out += '0';
    append_integer(out, abs_shown);
  }
}

}  // namespace

namespace {

// What a byte needs: 0 none, 1 an escape, 2 it starts (or continues) a
// multi-byte character.
struct ByteClasses {
  unsigned char of[256];
  constexpr ByteClasses() : of() {
    for (int c = 0; c < 256; ++c) of[c] = c < 0x20 || c == '"' || c == '\\' ? 1 : c >= 0x80 ? 2 : 0;
  }
};
constexpr ByteClasses kClasses;

// Whether none of the 8 bytes in `w` needs attention: each is 0x20..0x7f and
// neither '"' nor '\\'. The classic "has a byte less than n" and "has a zero
// byte" tests, exact for existence; eight bytes per step instead of one.
bool plain_word(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  const uint64_t below_space = (w - kOnes * 0x20) & ~w;
  const uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
  const uint64_t quote = (q - kOnes) & ~q, backslash = (b - kOnes) & ~b;
  return ((w | below_space | quote | backslash) & kHighs) == 0;
}

// The index of the first byte from `i` that needs attention, or text.size().
size_t skip_plain(std::string_view text, size_t i) {
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if (!plain_word(w)) break;
  }
  while (i < text.size() && kClasses.of[static_cast<unsigned char>(text[i])] == 0) ++i;
  return i;
}

// Appends `a`, `text` and `b` with one length check.
void append_between(std::string& out, char a, std::string_view text, char b) {
  const size_t at = out.size();
  out.resize(at + text.size() + 2);
  char* p = out.data() + at;
  p[0] = a;
  if (!text.empty()) std::memcpy(p + 1, text.data(), text.size());
  p[text.size() + 1] = b;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  size_t i = skip_plain(text, 0);
  if (i == text.size()) return append_between(out, '"', text, '"');  // most text: nothing to escape
  out += '"';
  // One pass: plain runs are copied whole, escapes written as found, and
  // multi-byte characters checked as they come; text that is not UTF-8 is
  // repaired first (rare), then written the same way.
  size_t plain = 0;
  while (i < text.size()) {
    const unsigned char cls = kClasses.of[static_cast<unsigned char>(text[i])];
    if (cls == 0) {
      i = skip_plain(text, i);
      continue;
    }
    if (cls == 2) {
      const utf8::Decoded d = utf8::decode(text.substr(i));
      if (!d.ok) {
        out.append(text.data() + plain, i - plain);
        append_escaped(out, utf8::repair(text.substr(i)));
        out += '"';
        return;
      }
      i += d.length;
      continue;
    }
    out.append(text.data() + plain, i - plain);
    append_escaped(out, text.substr(i, 1));
    plain = ++i;
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

void append_json_integer(std::string& out, int64_t v) { append_integer(out, v); }

void append_json(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : *value.get_ptr<const json::object_t*>()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, k);
        out += ':';
        append_json(out, v);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& v : value) {
        if (!first) out += ',';
        first = false;
        append_json(out, v);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      return append_json_string(out, value.get_ref<const std::string&>());
    case json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
      return append_integer(out, value.get<int64_t>());
    case json::value_t::number_unsigned:
      return append_integer(out, value.get<uint64_t>());
    case json::value_t::number_float: {
      const double d = value.get<double>();
      if (std::isfinite(d)) return append_double(out, d);
      out += "null";  // as nlohmann writes NaN and infinities
      return;
    }
    default:  // null, binary, discarded
      out += value.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

}  // namespace kaisha
