#include "runtime/core/utf8.hpp"

namespace kaisha::utf8 {
namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

Decoded decode(std::string_view text) {
  if (text.empty()) return {kReplacement, 0, false};
  const auto b = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = b(0);
  if (lead < 0x80) return {lead, 1, true};
  // Table 3-7 of the Unicode standard: the sequence length and the range
  // of the second byte depend on the lead (excluding overlongs, surrogates
  // and values above U+10FFFF); later bytes are plain continuations.
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;
  char32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {kReplacement, 1, false};  // a stray continuation, C0/C1 or F5..FF
  }
  for (size_t i = 1; i < length; ++i) {
    if (i >= text.size()) return {kReplacement, i, false};  // cut short
    const unsigned char c = b(i);
    const bool in_range = i == 1 ? (c >= low && c <= high) : continuation(c);
    if (!in_range) return {kReplacement, i, false};
    cp = (cp << 6) | (c & 0x3F);
  }
  return {cp, length, true};
}

bool valid(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    Decoded d = decode(text.substr(i));
    if (!d.ok) return false;
    i += d.length;
  }
  return true;
}

void append(std::string& out, char32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string repair(std::string_view text, Invalid how) {
  if (valid(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  size_t i = 0;
  while (i < text.size()) {
    Decoded d = decode(text.substr(i));
    if (d.ok) {
      out.append(text.substr(i, d.length));
    } else if (how == Invalid::latin1) {
      for (size_t k = 0; k < d.length; ++k) append(out, static_cast<unsigned char>(text[i + k]));
    } else {
      append(out, kReplacement);
    }
    i += d.length;
  }
  return out;
}

size_t boundary_before(std::string_view text, size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  // text[max_bytes] is the first byte left out: if it continues a sequence,
  // the cut moves back to that sequence's lead.
  for (size_t back = 0; back <= 3 && back <= max_bytes; ++back) {
    if (!continuation(static_cast<unsigned char>(text[max_bytes - back]))) return max_bytes - back;
  }
  return max_bytes;  // four or more continuation bytes: ill-formed anyway
}

std::string truncate(std::string_view text, size_t max_bytes) {
  return std::string(text.substr(0, boundary_before(text, max_bytes)));
}

std::string shorten(std::string_view text, size_t max_bytes, std::string_view ellipsis) {
  if (text.size() <= max_bytes) return std::string(text);
  std::string out = truncate(text, max_bytes);
  out.append(ellipsis);
  return out;
}

std::string one_line(std::string_view text, size_t max_bytes) {
  std::string out = shorten(text, max_bytes);
  for (char& c : out)
    if (c == '\n') c = ' ';
  return out;
}

std::string tail(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t start = text.size() - max_bytes;
  for (int k = 0; k < 3 && start < text.size() && continuation(static_cast<unsigned char>(text[start])); ++k) ++start;
  return std::string(text.substr(start));
}

}  // namespace kaisha::utf8
