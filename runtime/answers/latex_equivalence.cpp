#include "runtime/answers/latex_equivalence.hpp"

#include "runtime/answers/trim.hpp"

namespace kaisha::answers {
namespace {

constexpr size_t npos = std::string_view::npos;

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool latex_digit(char c) { return c >= '0' && c <= '9'; }

// The '}' closing the '{' at `open`, or npos. Escaped braces count like any
// other: in a well-formed answer they come in pairs.
size_t closing_brace(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i;
  }
  return npos;
}

// The '{' opening the '}' at `close` (the last byte of s), or npos.
size_t opening_brace(std::string_view s, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == '}') ++depth;
    if (s[i] == '{' && --depth == 0) return i;
  }
  return npos;
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != npos; at = hit + from.size()) {
    out.append(s.substr(at, hit - at));
    out.append(to);
  }
  out.append(s.substr(at));
  return out;
}

std::optional<std::string> braced(std::string_view s, size_t open) {
  size_t close = closing_brace(s, open);
  if (close == npos) return std::nullopt;
  return std::string(trim(s.substr(open + 1, close - open - 1)));
}

std::string unwrap_math(std::string_view s) {
  auto wrapped = [&](std::string_view open, std::string_view close) {
    return s.size() >= open.size() + close.size() && s.starts_with(open) && s.ends_with(close);
  };
  std::string_view inner = s;
  if (wrapped("$$", "$$"))
    inner = s.substr(2, s.size() - 4);
  else if (wrapped("$", "$"))
    inner = s.substr(1, s.size() - 2);
  else if (wrapped("\\(", "\\)") || wrapped("\\[", "\\]"))
    inner = s.substr(2, s.size() - 4);
  // "$1$ and $2$" is two formulas, not one wrapped answer.
  if (inner.size() != s.size() && s[0] == '$' && inner.find('$') != npos) return std::string(s);
  return std::string(trim(inner));
}

// \left and \right as sizing commands only: \leftarrow keeps its name.
std::string drop_left_right(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t word = s.compare(i, 5, "\\left") == 0 ? 5 : s.compare(i, 6, "\\right") == 0 ? 6 : 0;
    if (word != 0) {
      size_t after = i + word;
      bool letter = after < s.size() && ((s[after] >= 'a' && s[after] <= 'z') || (s[after] >= 'A' && s[after] <= 'Z'));
      if (!letter) {
        i = after;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

// Units: "5\text{ cm}" -> "5". An answer that is only text stays. The view
// shrinks and is copied once: many unit groups stay linear.
std::string drop_trailing_text(std::string_view s) {
  std::string_view t = trim(s);
  for (;;) {
    if (t.empty() || t.back() != '}') break;
    size_t open = opening_brace(t, t.size() - 1);
    if (open == npos || open < 5 || t.compare(open - 5, 5, "\\text") != 0) break;
    std::string_view before = trim(t.substr(0, open - 5));
    if (before.empty()) break;
    t = before;
  }
  return std::string(t);
}

std::string drop_percent(std::string_view s) {
  std::string out = replace_all(s, "\\%", "");
  std::string_view t = trim(out);
  if (!t.empty() && t.back() == '%') t.remove_suffix(1);
  return std::string(t);
}

std::string add_leading_zeros(std::string_view s) {
  static constexpr std::string_view kBefore = " \t\v\f{([-+=,";
  std::string out;
  out.reserve(s.size() + 4);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.' && i + 1 < s.size() && latex_digit(s[i + 1]) && (i == 0 || kBefore.find(s[i - 1]) != npos))
      out += '0';
    out += s[i];
  }
  return out;
}

std::string strip_short_left_side(std::string s) {
  size_t eq = s.find('=');
  if (eq == npos || s.find('=', eq + 1) != npos) return s;
  if (trim(std::string_view(s).substr(0, eq)).size() > 2) return s;
  return s.substr(eq + 1);
}

std::string drop_whitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (!is_space(c)) out += c;
  return out;
}

std::string fix_sqrt(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 5, "\\sqrt") == 0 && i + 5 < s.size() && is_alnum(s[i + 5])) {
      out += "\\sqrt{";
      out += s[i + 5];
      out += '}';
      i += 6;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string fix_fracs(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 5, "\\frac") == 0 && i + 6 < s.size() && is_alnum(s[i + 5])) {
      char a = s[i + 5], b = s[i + 6];
      if (b == '{') {  // \frac1{2}: the numerator alone
        out += "\\frac{";
        out += a;
        out += '}';
        i += 6;
        continue;
      }
      if (is_alnum(b)) {  // \frac12
        out += "\\frac{";
        out += a;
        out += "}{";
        out += b;
        out += '}';
        i += 7;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

// An integer as a program would print it: optional '-', no leading zero, not -0.
bool plain_integer(std::string_view s) {
  if (s.starts_with('-')) s.remove_prefix(1);
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  for (char c : s)
    if (!latex_digit(c)) return false;
  return true;
}

std::string fix_a_slash_b(std::string s) {
  size_t slash = s.find('/');
  if (slash == npos || s.find('/', slash + 1) != npos) return s;
  std::string_view a = std::string_view(s).substr(0, slash), b = std::string_view(s).substr(slash + 1);
  if (!plain_integer(a) || !plain_integer(b) || a == "-0" || b == "-0") return s;
  return "\\frac{" + std::string(a) + "}{" + std::string(b) + "}";
}

}  // namespace

std::optional<std::string> boxed_content(std::string_view answer) {
  std::string_view s = trim(answer);
  size_t boxed = s.rfind("\\boxed"), fbox = s.rfind("\\fbox");
  if (boxed != npos || fbox != npos) {
    bool is_boxed = boxed != npos && (fbox == npos || boxed > fbox);
    size_t i = is_boxed ? boxed + 6 : fbox + 5;
    size_t after_name = i;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == '{') return braced(s, i);
    if (is_boxed && i > after_name) {  // "\boxed 5$": up to the closing dollar
      size_t end = s.find('$', i);
      return std::string(trim(s.substr(i, end == npos ? npos : end - i)));
    }
    return std::nullopt;
  }
  if (s.starts_with("boxed{")) return braced(s, 5);
  if (s.starts_with("boxed$")) {
    size_t end = s.find('$', 6);
    if (end == npos) return std::nullopt;
    return std::string(trim(s.substr(6, end - 6)));
  }
  return std::nullopt;
}

std::string normalize_latex(std::string_view answer) {
  std::string s(trim(answer));
  if (std::optional<std::string> box = boxed_content(s)) s = std::move(*box);
  s = unwrap_math(s);
  s = replace_all(replace_all(s, "\n", ""), "\r", "");
  s = replace_all(s, "\\!", "");
  s = replace_all(s, "\\\\", "\\");
  s = replace_all(replace_all(s, "tfrac", "frac"), "dfrac", "frac");
  s = drop_left_right(s);
  s = replace_all(replace_all(s, "^{\\circ}", ""), "^\\circ", "");
  s = replace_all(s, "\\$", "");
  s = drop_trailing_text(s);
  s = drop_percent(s);
  s = add_leading_zeros(s);
  s = strip_short_left_side(std::move(s));
  s = drop_whitespace(s);
  s = fix_sqrt(s);
  s = fix_fracs(s);
  if (s == "0.5") s = "\\frac{1}{2}";
  return fix_a_slash_b(std::move(s));
}

bool latex_equivalence(std::string_view a, std::string_view b) { return normalize_latex(a) == normalize_latex(b); }

}  // namespace kaisha::answers
