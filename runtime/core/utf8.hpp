// UTF-8: the one place kaisha decodes, checks, repairs and shortens text.
//
// kaisha's text is UTF-8 everywhere: JSON (nlohmann's dump() throws on
// anything else), the journal, the terminal. Two rules keep it so:
//   * Text from outside (model answers, tool and sandbox output, MCP
//     servers, HTTP bodies) is repaired once where it enters: every
//     ill-formed sequence becomes U+FFFD.
//   * Text is shortened only at a code-point boundary (truncate, shorten,
//     tail): a byte cut such as substr(0, n) can split a character and make
//     valid text invalid.
//
// Well-formed means RFC 3629 / Unicode Table 3-7: no overlong forms, no
// surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Repair replaces each
// maximal ill-formed subpart with one U+FFFD (the Unicode-recommended
// practice, the same count a browser's decoder produces).
//
// Web pages (GetWebsite) are the one exception to U+FFFD: a page whose bytes
// are not UTF-8 was almost always written in a legacy single-byte charset
// (ISO-8859-1 / Windows-1252: "café" as 63 61 66 E9), where U+FFFD would
// erase every accented letter. For pages each ill-formed byte is read as the
// Latin-1 character of the same value instead (Invalid::latin1); well-formed
// sequences in the same page stay as they are, so a UTF-8 page with one
// stray byte keeps its text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kaisha::utf8 {

inline constexpr char32_t kReplacement = 0xFFFD;
inline constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

// What repair() puts in place of an ill-formed subpart.
enum class Invalid {
  replace,  // one U+FFFD per maximal ill-formed subpart
  latin1,   // each of its bytes as the Latin-1 character of that value
};

// One decoding step: the code point at the start of the text and how many
// bytes it took. On an ill-formed sequence `ok` is false, `code_point` is
// U+FFFD and `length` (>= 1) covers the maximal ill-formed subpart.
struct Decoded {
  char32_t code_point = kReplacement;
  size_t length = 0;
  bool ok = false;
};
Decoded decode(std::string_view text);

// Whether `text` is well-formed UTF-8.
bool valid(std::string_view text);

// `text` with every ill-formed subpart replaced (see Invalid). Returns the
// text unchanged (one copy, no re-encoding) when it is already valid.
std::string repair(std::string_view text, Invalid how = Invalid::replace);

// Appends `cp` encoded as UTF-8; a surrogate or a value above U+10FFFF
// appends U+FFFD instead.
void append(std::string& out, char32_t cp);

// The largest n <= max_bytes such that text.substr(0, n) does not end inside
// a multi-byte sequence (it backs off over at most 3 continuation bytes).
// On valid text the prefix is valid.
size_t boundary_before(std::string_view text, size_t max_bytes);

// The longest code-point-aligned prefix of at most `max_bytes` bytes.
std::string truncate(std::string_view text, size_t max_bytes);

// `text` when it fits in `max_bytes`; else its code-point-aligned prefix of
// at most `max_bytes` bytes followed by `ellipsis` (the ellipsis is not
// counted in the budget, so callers keep their existing limits).
std::string shorten(std::string_view text, size_t max_bytes, std::string_view ellipsis = kEllipsis);

// shorten() of `text` with each newline turned into a space: one line of a
// transcript.
std::string one_line(std::string_view text, size_t max_bytes);

// The longest code-point-aligned suffix of at most `max_bytes` bytes (the
// end of a log or a process's output).
std::string tail(std::string_view text, size_t max_bytes);

}  // namespace kaisha::utf8
