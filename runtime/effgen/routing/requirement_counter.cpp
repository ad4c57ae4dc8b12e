#include "runtime/effgen/routing/requirement_counter.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "runtime/core/ascii_space.hpp"

namespace kaisha::routing {

namespace {

constexpr std::array<std::pair<RequirementClass, std::string_view>, 8> kNames{{
    {RequirementClass::question, "question"},
    {RequirementClass::and_word, "and"},
    {RequirementClass::or_word, "or"},
    {RequirementClass::then_word, "then"},
    {RequirementClass::comma, "comma"},
    {RequirementClass::semicolon, "semicolon"},
    {RequirementClass::numbered_item, "numbered_item"},
    {RequirementClass::bullet, "bullet"},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// True when only blanks stand between the start of the line and `pos`.
bool at_line_start(const std::string& s, std::size_t pos) {
  while (pos > 0) {
    char c = s[pos - 1];
    if (c == '\n') return true;
    if (!is_blank(c)) return false;
    --pos;
  }
  return true;
}

// Numbered-item markers. Only one or two digits, so years ("in 2024.") and
// amounts are never items; "1." only at a line start, because inline "3." is
// usually the end of a sentence.
std::size_t count_numbered_items(const std::string& s) {
  std::size_t count = 0;
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    if (!is_digit(s[i]) || (i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == ','))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && is_digit(s[j])) ++j;
    const std::size_t digits = j - i;
    if (digits <= 2 && j < n) {
      const bool end_or_space = (j + 1 == n) || ascii_space(s[j + 1]);
      if (s[j] == ')' && i > 0 && s[i - 1] == '(') {
        ++count;  // "(1)"
      } else if (s[j] == ')' && end_or_space && (i == 0 || ascii_space(s[i - 1]))) {
        ++count;  // "1) "
      } else if (s[j] == '.' && end_or_space && at_line_start(s, i)) {
        ++count;  // "1. " starting a line
      }
    }
    i = j;
  }
  return count;
}

std::size_t count_bullets(const std::string& s) {
  std::size_t count = 0;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t after = 0;
    if (s[i] == '-' || s[i] == '*') {
      after = i + 1;
    } else if (s.compare(i, 3, "\xE2\x80\xA2") == 0) {  // U+2022 BULLET
      after = i + 3;
    } else {
      continue;
    }
    if (after < n && is_blank(s[after]) && at_line_start(s, i)) ++count;
  }
  return count;
}

}  // namespace

std::string_view to_string(RequirementClass c) {
  for (const auto& [k, name] : kNames) {
    if (k == c) return name;
  }
  return "?";
}

std::optional<RequirementClass> parse_requirement_class(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

bool RequirementProfile::counts(RequirementClass c) const {
  return std::find(classes.begin(), classes.end(), c) != classes.end();
}

std::size_t RequirementCounts::of(RequirementClass c) const {
  switch (c) {
    case RequirementClass::question:
      return question;
    case RequirementClass::and_word:
      return and_word;
    case RequirementClass::or_word:
      return or_word;
    case RequirementClass::then_word:
      return then_word;
    case RequirementClass::comma:
      return comma;
    case RequirementClass::semicolon:
      return semicolon;
    case RequirementClass::numbered_item:
      return numbered_item;
    case RequirementClass::bullet:
      return bullet;
  }
  return 0;
}

std::size_t RequirementCounts::total(const RequirementProfile& profile) const {
  const bool skip_commas = profile.commas_yield_to_numbered_items && numbered_item > 0;
  std::size_t n = 0;
  for (const auto& [k, name] : kNames) {
    if (!profile.counts(k)) continue;
    if (k == RequirementClass::comma && skip_commas) continue;
    n += of(k);
  }
  return n;
}

RequirementCounts count_requirements(const ScannedText& scanned) {
  RequirementCounts c;
  const std::string& s = scanned.lowered;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    switch (s[i]) {
      case '?':
        ++c.question;
        break;
      case ';':
        ++c.semicolon;
        break;
      case ',':
        if (!(i > 0 && i + 1 < n && is_digit(s[i - 1]) && is_digit(s[i + 1]))) ++c.comma;
        break;
      default:
        break;
    }
  }
  for (const auto& w : scanned.words) {
    if (w.text == "and")
      ++c.and_word;
    else if (w.text == "or")
      ++c.or_word;
    else if (w.text == "then")
      ++c.then_word;
  }
  c.numbered_item = count_numbered_items(s);
  c.bullet = count_bullets(s);
  return c;
}

}  // namespace kaisha::routing
