#include "runtime/hiva/replies/reply_text.hpp"

#include <cstdio>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::hiva::reply {
namespace {

constexpr size_t kQuoteBytes = 80;  // enough to recognise a value in the journal
constexpr size_t kFindingsListed = 8;

constexpr std::string_view kFullWidthColon = "\xEF\xBC\x9A";  // ：
constexpr std::string_view kEnDash = "\xE2\x80\x93";          // –
constexpr std::string_view kEmDash = "\xE2\x80\x94";          // —
constexpr std::string_view kBullet = "\xE2\x80\xA2";          // •

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool has_at(std::string_view text, size_t at, std::string_view what) {
  return at <= text.size() && text.substr(at).starts_with(what);
}

// The same word, ASCII case-insensitively.
bool iequal_at(std::string_view text, size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (ascii_lower(text[at + k]) != ascii_lower(word[k])) return false;
  return true;
}

size_t line_start_of(std::string_view text, size_t at) {
  size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Markdown, list and quote marks that may stand around a label on its line.
bool is_decoration(char c) {
  return c == ' ' || c == '\t' || c == '*' || c == '_' || c == '#' || c == '>' || c == '`' || c == '-' || c == '"' ||
         c == '\'';
}

// `s` without decoration at both ends, a list marker ("2.", "3)") and a
// bullet at its start.
std::string_view strip_decoration(std::string_view s) {
  for (bool again = true; again;) {
    again = false;
    while (!s.empty() && is_decoration(s.front())) s.remove_prefix(1), again = true;
    while (!s.empty() && is_decoration(s.back())) s.remove_suffix(1), again = true;
    if (s.starts_with(kBullet)) s.remove_prefix(kBullet.size()), again = true;
    size_t d = 0;
    while (d < s.size() && is_digit(s[d])) ++d;
    if (d > 0 && d < s.size() && (s[d] == '.' || s[d] == ')')) s.remove_prefix(d + 1), again = true;
  }
  return s;
}

}  // namespace

std::optional<std::string> Problems::text() const {
  if (found_.empty()) return std::nullopt;
  std::string out = who_ + " reply: ";
  for (size_t i = 0; i < found_.size() && i < kFindingsListed; ++i) out += (i ? "; " : "") + found_[i];
  if (found_.size() > kFindingsListed) out += "; and " + std::to_string(found_.size() - kFindingsListed) + " more";
  return out;
}

std::optional<size_t> invalid_utf8_at(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    utf8::Decoded d = utf8::decode(text.substr(i));
    if (!d.ok) return i + 1;
    i += d.length;
  }
  return std::nullopt;
}

std::string invalid_utf8_finding(std::string_view text, size_t at) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[at - 1]));
  return "invalid UTF-8 at byte " + std::to_string(at) + " (" + hex + ")";
}

std::string normalize(std::string_view raw, Problems& problems) {
  std::string repaired;
  if (std::optional<size_t> bad = invalid_utf8_at(raw)) {
    problems.add(invalid_utf8_finding(raw, *bad) + ", replaced by U+FFFD");
    repaired = utf8::repair(raw);
    raw = repaired;
  }
  if (raw.starts_with("\xEF\xBB\xBF")) raw.remove_prefix(3);
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\r') {
      out += raw[i];
    } else {
      out += '\n';
      if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
    }
  }
  return out;
}

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_word_char(char c) { return is_letter(c) || is_digit(c) || c == '_'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string in_quotes(std::string_view value) { return "\"" + utf8::shorten(value, kQuoteBytes) + "\""; }

size_t line_of(std::string_view text, size_t at) {
  size_t line = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

std::optional<size_t> match_words(std::string_view text, size_t at, const std::vector<std::string_view>& words) {
  if (at > text.size() || (at > 0 && is_word_char(text[at - 1]))) return std::nullopt;
  size_t i = at;
  for (size_t w = 0; w < words.size(); ++w) {
    if (w > 0 && i < text.size() && (text[i] == '_' || text[i] == '-' || text[i] == ' ') &&
        iequal_at(text, i + 1, words[w]))
      ++i;
    if (!iequal_at(text, i, words[w])) return std::nullopt;
    i += words[w].size();
  }
  if (i < text.size() && is_word_char(text[i])) return std::nullopt;
  return i;
}

std::optional<size_t> after_separator(std::string_view text, size_t at, bool line_end_ok) {
  size_t i = at;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '*' || text[i] == '_' || text[i] == '`' ||
                             text[i] == '"' || text[i] == '\'' || text[i] == ']' || text[i] == ')'))
    ++i;
  if (i == text.size() || text[i] == '\n') {
    if (!line_end_ok) return std::nullopt;
    return i;
  }
  if (text[i] == ':' || text[i] == '=' || text[i] == '-')
    ++i;
  else if (has_at(text, i, kFullWidthColon) || has_at(text, i, kEnDash) || has_at(text, i, kEmDash))
    i += 3;
  else
    return std::nullopt;
  while (i < text.size() && text[i] == '*') ++i;  // the closing emphasis of "**Label:**"
  return i;
}

size_t label_region_start(std::string_view text, size_t at) {
  size_t r = at;
  for (bool again = true; again;) {
    again = false;
    while (r > 0 && (text[r - 1] == ' ' || text[r - 1] == '\t' || text[r - 1] == '*' || text[r - 1] == '_' ||
                     text[r - 1] == '`' || text[r - 1] == '#' || text[r - 1] == '>'))
      --r, again = true;
    // A list marker "2." or "3)" standing after whitespace or at a line start.
    if (r > 0 && (text[r - 1] == '.' || text[r - 1] == ')')) {
      size_t d = r - 1;
      while (d > 0 && is_digit(text[d - 1])) --d;
      if (d < r - 1 && (d == 0 || is_space(text[d - 1]))) r = d, again = true;
    }
    if (r > 0 && text[r - 1] == '-' && (r == 1 || is_space(text[r - 2]))) --r, again = true;
    if (r >= kBullet.size() && text.substr(r - kBullet.size(), kBullet.size()) == kBullet)
      r -= kBullet.size(), again = true;
  }
  return r;
}

LinePlace line_place(std::string_view text, size_t at) {
  std::string_view prefix = strip_decoration(text.substr(line_start_of(text, at), at - line_start_of(text, at)));
  if (prefix.empty()) return LinePlace::line_start;
  size_t colon_bytes = prefix.ends_with(':') ? 1 : prefix.ends_with(kFullWidthColon) ? 3 : 0;
  if (colon_bytes == 0) return LinePlace::mid_line;
  std::string_view label = strip_decoration(prefix.substr(0, prefix.size() - colon_bytes));
  size_t words = 0;
  bool in_word = false;
  for (char c : label) {
    if (is_letter(c) || c == '_') {
      if (!in_word) ++words;
      in_word = true;
    } else if (c == ' ') {
      in_word = false;
    } else {
      return LinePlace::mid_line;
    }
  }
  return words >= 1 && words <= 4 ? LinePlace::labelled : LinePlace::mid_line;
}

std::string_view strip_fence(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.starts_with("```")) return t;
  size_t nl = t.find('\n');
  if (nl == std::string_view::npos) return t;
  std::string_view body = t.substr(nl + 1);
  if (!body.ends_with("```")) return t;
  body.remove_suffix(3);
  if (body.find("```") != std::string_view::npos) return t;  // several blocks: not one fenced text
  return trim(body);
}

std::string_view strip_wrapping(std::string_view text) {
  struct Pair {
    std::string_view open, close;
  };
  static constexpr Pair kPairs[] = {{"**", "**"},
                                    {"__", "__"},
                                    {"`", "`"},
                                    {"\"", "\""},
                                    {"'", "'"},
                                    {"\xE2\x80\x9C", "\xE2\x80\x9D"},  // “ ”
                                    {"\xE3\x80\x8C", "\xE3\x80\x8D"},  // 「 」
                                    {"[", "]"},
                                    {"*", "*"}};
  std::string_view t = trim(text);
  for (bool again = true; again;) {
    again = false;
    for (const Pair& p : kPairs) {
      if (t.size() < p.open.size() + p.close.size() || !t.starts_with(p.open) || !t.ends_with(p.close)) continue;
      std::string_view inner = t.substr(p.open.size(), t.size() - p.open.size() - p.close.size());
      if (inner.find(p.close) != std::string_view::npos) continue;  // "**a** and **b**" is not one wrapped text
      t = trim(inner);
      again = true;
      break;
    }
  }
  return t;
}

TagScan scan_tags(std::string_view text, std::string_view name) {
  struct Event {
    size_t begin, end;
    bool closing;
  };
  std::vector<Event> events;
  for (size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', i + 1)) {
    size_t j = i + 1;
    while (j < text.size() && text[j] == ' ') ++j;
    bool closing = j < text.size() && text[j] == '/';
    if (closing) ++j;
    while (j < text.size() && text[j] == ' ') ++j;
    if (!iequal_at(text, j, name)) continue;
    j += name.size();
    while (j < text.size() && text[j] == ' ') ++j;
    if (j >= text.size() || text[j] != '>') continue;
    // "**<FEEDBACK>**": the emphasis belongs to the tag, not to its content.
    size_t begin = i, end = j + 1;
    while (begin > 0 && text[begin - 1] == '*') --begin;
    while (end < text.size() && text[end] == '*') ++end;
    if (!events.empty() && begin < events.back().end) begin = events.back().end;
    events.push_back({begin, end, closing});
  }
  TagScan scan;
  size_t open_at = 0, previous_end = 0;
  bool open = false;
  for (const Event& e : events) {
    if (!e.closing) {
      if (open) scan.blocks.push_back({open_at, e.begin, true, false});
      open = true;
      open_at = e.end;
    } else if (open) {
      scan.blocks.push_back({open_at, e.begin, true, true});
      open = false;
    } else {
      scan.blocks.push_back({previous_end, e.begin, false, true});
    }
    previous_end = e.end;
  }
  if (open) scan.blocks.push_back({open_at, text.size(), true, false});
  size_t at = 0;
  for (const Event& e : events) {
    scan.without_tags.append(text.substr(at, e.begin - at));
    at = e.end;
  }
  scan.without_tags.append(text.substr(at));
  return scan;
}

}  // namespace kaisha::hiva::reply
