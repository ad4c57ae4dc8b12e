#include "runtime/answers/numeric_match.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/answers/latex_equivalence.hpp"
#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::answers {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool number_char(char c) { return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

struct Number {
  size_t begin = 0, end = 0;
  double value = 0;
};

size_t digits_from(std::string_view s, size_t i) {
  while (i < s.size() && digit(s[i])) ++i;
  return i;
}

// The number starting at `i` (a sign, a digit, or a '.' before a digit), or
// nullopt when none starts there.
std::optional<Number> number_at(std::string_view s, size_t i) {
  Number n{i, i, 0};
  std::string clean;
  size_t p = i;
  if (s[p] == '-' || s[p] == '+') {
    if (p > 0 && number_char(s[p - 1])) return std::nullopt;  // "3-4" is two numbers, not 3 and -4
    if (s[p] == '-') clean += '-';
    ++p;
  }
  size_t int_start = p;
  size_t int_end = digits_from(s, p);
  if (int_end == int_start) clean += '0';  // ".5" reads 0.5
  clean.append(s.substr(p, int_end - p));
  p = int_end;
  // Thousands groups: ",ddd" not followed by another digit.
  while (int_end > int_start && p + 3 < s.size() && s[p] == ',' && digit(s[p + 1]) && digit(s[p + 2]) &&
         digit(s[p + 3]) && (p + 4 >= s.size() || !digit(s[p + 4]))) {
    clean.append(s.substr(p + 1, 3));
    p += 4;
  }
  if (p < s.size() && s[p] == '.' && p + 1 < s.size() && digit(s[p + 1])) {
    size_t frac_end = digits_from(s, p + 1);
    clean.append(s.substr(p, frac_end - p));
    p = frac_end;
  }
  if (!digit(clean.back()) || (int_end == int_start && p == int_end)) return std::nullopt;  // no digit at all
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    size_t q = p + 1;
    if (q < s.size() && (s[q] == '-' || s[q] == '+')) ++q;
    size_t exp_end = digits_from(s, q);
    // Only an exponent when digits follow and no letter does ("2e5" yes, "3eggs" no).
    if (exp_end > q && (exp_end >= s.size() || !number_char(s[exp_end]))) {
      clean.append(s.substr(p, exp_end - p));
      p = exp_end;
    }
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), v);
  if (ec != std::errc() || ptr != clean.data() + clean.size() || !std::isfinite(v)) return std::nullopt;
  n.end = p;
  n.value = v;
  return n;
}

bool starts_number(std::string_view s, size_t i) {
  char c = s[i];
  if (digit(c)) return i == 0 || (!digit(s[i - 1]) && s[i - 1] != '.');
  bool next_digit = i + 1 < s.size() && digit(s[i + 1]);
  bool next_dot_digit = i + 2 < s.size() && s[i + 1] == '.' && digit(s[i + 2]);
  if (c == '.') return next_digit && (i == 0 || !digit(s[i - 1]));
  if (c == '-' || c == '+') return next_digit || next_dot_digit;
  return false;
}

std::vector<Number> numbers_in(std::string_view s) {
  std::vector<Number> out;
  for (size_t i = 0; i < s.size();) {
    if (starts_number(s, i))
      if (auto n = number_at(s, i)) {
        out.push_back(*n);
        i = n->end;
        continue;
      }
    ++i;
  }
  return out;
}

std::optional<double> first_number(std::string_view s) {
  auto all = numbers_in(s);
  return all.empty() ? std::nullopt : std::optional<double>(all.front().value);
}

std::optional<double> last_number(std::string_view s) {
  auto all = numbers_in(s);
  return all.empty() ? std::nullopt : std::optional<double>(all.back().value);
}

// The text after the last of `markers` (ASCII case-insensitive), or nullopt.
std::optional<std::string_view> after_last(std::string_view text, std::initializer_list<std::string_view> markers) {
  std::string lower = ascii_lower(text);
  size_t best = std::string::npos, best_end = 0;
  for (std::string_view m : markers) {
    size_t at = lower.rfind(m);
    if (at != std::string::npos && (best == std::string::npos || at > best)) {
      best = at;
      best_end = at + m.size();
    }
  }
  if (best == std::string::npos) return std::nullopt;
  return text.substr(best_end);
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty() || !starts_number(t, 0)) return std::nullopt;
  auto n = number_at(t, 0);
  if (!n || n->end != t.size()) return std::nullopt;
  return n->value;
}

std::optional<double> answer_number(std::string_view answer) {
  if (auto boxed = boxed_content(answer))
    if (auto n = last_number(*boxed)) return n;
  if (auto rest = after_last(answer, {"####"}))
    if (auto n = first_number(*rest)) return n;
  if (auto rest = after_last(answer, {"answer is", "answer:"}))
    if (auto n = first_number(*rest)) return n;
  return last_number(answer);
}

bool numbers_match(double got, double reference, std::optional<double> absolute) {
  double tolerance = absolute ? *absolute : kNumericRelativeTolerance * std::max(1.0, std::fabs(reference));
  return std::fabs(got - reference) <= tolerance;
}

bool numeric_match(std::string_view answer, std::string_view reference, std::optional<double> absolute) {
  auto got = answer_number(answer);
  auto want = parse_number(reference);
  return got && want && numbers_match(*got, *want, absolute);
}

}  // namespace kaisha::answers
