// The reading every HiVA reply parser shares. Replies are free text with
// labels ("TOOL_FEEDBACK: ...", "ADD_PARALLEL: ...") or tags
// ("<FEEDBACK>...</FEEDBACK>"); models decorate them with markdown, change
// their case, write CRLF, put prose around them. These helpers find labels
// and tags through all of that, on ASCII words only, so Japanese or emoji
// around them are carried through untouched.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kaisha::hiva::reply {

// Findings of one reply, each prefixed once with the reply's name.
class Problems {
 public:
  explicit Problems(std::string_view who) : who_(who) {}
  void add(std::string what) { found_.push_back(std::move(what)); }
  bool empty() const { return found_.empty(); }
  // "<who> reply: <finding>; <finding>", or nullopt when nothing was found.
  std::optional<std::string> text() const;

 private:
  std::string who_;
  std::vector<std::string> found_;
};

// 1-based offset of the first byte of the first ill-formed UTF-8 sequence.
std::optional<size_t> invalid_utf8_at(std::string_view text);

// "invalid UTF-8 at byte 17 (0xFF)".
std::string invalid_utf8_finding(std::string_view text, size_t at);

// The text a parser reads: every ill-formed UTF-8 sequence replaced by
// U+FFFD (a finding names the first), a leading byte-order mark dropped,
// CRLF and lone CR turned into LF.
std::string normalize(std::string_view raw, Problems& problems);

bool is_space(char c);      // ASCII whitespace
bool is_word_char(char c);  // ASCII letter, digit or '_'
std::string_view trim(std::string_view text);

// `value` in double quotes, shortened at a code point for a problem text.
std::string in_quotes(std::string_view value);

// 1-based line number of byte `at`.
size_t line_of(std::string_view text, size_t at);

// The end of `words` matched at `at`, ASCII case-insensitive: the words may
// be joined by one '_', '-' or space or by nothing ("TOOL_FEEDBACK",
// "Tool Feedback", "toolfeedback"), and must be a whole word on both sides.
std::optional<size_t> match_words(std::string_view text, size_t at, const std::vector<std::string_view>& words);

// After a label that ends at `at`: the markdown and quotes around it are
// skipped, then a separator (':', full-width '：', '-', '–', '—', '=') is
// required, or a line end when `line_end_ok` (a heading). Returns where the
// value starts (after the separator and any emphasis following it).
std::optional<size_t> after_separator(std::string_view text, size_t at, bool line_end_ok);

// Where a label at `at` begins once the list marker and markdown in front
// of it on its line ("2. ", "- ", "**", "### ") are counted in: the text of
// the field before it ends there.
size_t label_region_start(std::string_view text, size_t at);

// Where the label at `at` stands on its line.
enum class LinePlace {
  line_start,  // only markdown, a list marker or quotes before it
  labelled,    // "Decision:", "**Answer:**", "Output:" and the like before it
  mid_line,    // after other text
};
LinePlace line_place(std::string_view text, size_t at);

// The text with one surrounding ``` fence (any language tag) removed, when
// the whole text is one fenced block; else the text. Trimmed.
std::string_view strip_fence(std::string_view text);

// The text trimmed and without the emphasis, code and quote marks wrapped
// around it (**x**, __x__, `x`, "x", 'x', “x”, 「x」, [x]).
std::string_view strip_wrapping(std::string_view text);

// A tag such as <FEEDBACK>...</FEEDBACK> found in a reply. Tag names match
// ASCII case-insensitively, with spaces allowed inside the angle brackets.
struct TagBlock {
  size_t content_begin = 0;
  size_t content_end = 0;
  bool opened = true;  // false: a closing tag with no opening one before it
  bool closed = true;  // false: an opening tag never closed (the reply was cut off)
};

struct TagScan {
  std::vector<TagBlock> blocks;
  std::string without_tags;  // the text with every opening and closing tag removed
};

TagScan scan_tags(std::string_view text, std::string_view name);

}  // namespace kaisha::hiva::reply
