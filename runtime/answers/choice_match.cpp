#include "runtime/answers/choice_match.hpp"

#include <string>

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::answers {

namespace {

bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool letter(char c) { return upper(c) || (c >= 'a' && c <= 'z'); }
bool alnum(char c) { return letter(c) || (c >= '0' && c <= '9'); }
char to_upper(char c) { return upper(c) ? c : static_cast<char>(c - 'a' + 'A'); }

bool decoration(char c) { return c == '*' || c == '`' || c == '"' || c == '\''; }

std::string_view strip_decoration(std::string_view s) {
  s = trim(s);
  while (!s.empty() && decoration(s.front())) s.remove_prefix(1);
  while (!s.empty() && decoration(s.back())) s.remove_suffix(1);
  return trim(s);
}

// "(x)" or "[x]" at `i` (either case).
std::optional<char> bracketed_at(std::string_view s, size_t i) {
  if (i + 2 < s.size() && ((s[i] == '(' && s[i + 2] == ')') || (s[i] == '[' && s[i + 2] == ']')) && letter(s[i + 1]))
    return to_upper(s[i + 1]);
  return std::nullopt;
}

std::optional<char> after_marker(std::string_view answer) {
  std::string lower = ascii_lower(answer);
  size_t best = std::string::npos, best_end = 0;
  for (std::string_view m : {"answer is", "answer:", "option", "choice"}) {
    size_t at = lower.rfind(m);
    if (at != std::string::npos && (best == std::string::npos || at > best)) {
      best = at;
      best_end = at + m.size();
    }
  }
  if (best == std::string::npos) return std::nullopt;
  size_t i = best_end;
  // Past "answer: is", "option **(B)**", "choice is B".
  for (;;) {
    while (i < answer.size() && (is_space(answer[i]) || answer[i] == '*' || answer[i] == ':')) ++i;
    if (lower.compare(i, 3, "is ") == 0) {
      i += 2;
      continue;
    }
    break;
  }
  if (i >= answer.size()) return std::nullopt;
  if (auto b = bracketed_at(answer, i)) return b;
  if (upper(answer[i]) && (i + 1 >= answer.size() || !alnum(answer[i + 1]))) return answer[i];
  return std::nullopt;
}

std::optional<char> last_upper_in_parens(std::string_view answer) {
  for (size_t i = answer.size(); i-- > 0;)
    if (answer[i] == '(' && i + 2 < answer.size() && upper(answer[i + 1]) && answer[i + 2] == ')') return answer[i + 1];
  return std::nullopt;
}

}  // namespace

std::optional<char> parse_choice(std::string_view text) {
  std::string_view s = strip_decoration(text);
  if (s.size() == 3) return bracketed_at(s, 0);
  if (s.size() == 2 && letter(s[0]) && (s[1] == '.' || s[1] == ')' || s[1] == ':')) return to_upper(s[0]);
  if (s.size() == 1 && letter(s[0])) return to_upper(s[0]);
  return std::nullopt;
}

std::optional<char> answer_choice(std::string_view answer) {
  if (auto whole = parse_choice(answer)) return whole;
  if (auto marked = after_marker(answer)) return marked;
  return last_upper_in_parens(answer);
}

bool choice_match(std::string_view answer, std::string_view reference) {
  auto got = answer_choice(answer);
  auto want = parse_choice(reference);
  return got && want && *got == *want;
}

}  // namespace kaisha::answers
