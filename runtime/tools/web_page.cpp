#include "runtime/tools/web_page.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::tools {
namespace {

// A character reference's code point; NUL, surrogates and values beyond
// U+10FFFF become U+FFFD (HTML's rule).
void append_utf8(std::string& out, unsigned long cp) {
  utf8::append(out, cp == 0 || cp > 0x10FFFF ? utf8::kReplacement : static_cast<char32_t>(cp));
}

// Decodes the entity starting at html[i] == '&'; returns the characters
// consumed (0 when it is not an entity, and the '&' stays literal).
size_t decode_entity(const std::string& html, size_t i, std::string& out) {
  static const std::map<std::string, unsigned long> kNamed = {
      {"amp", '&'},       {"lt", '<'},       {"gt", '>'},       {"quot", '"'},     {"apos", '\''},
      {"nbsp", ' '},      {"copy", 0xA9},    {"reg", 0xAE},     {"mdash", 0x2014}, {"ndash", 0x2013},
      {"hellip", 0x2026}, {"rsquo", 0x2019}, {"lsquo", 0x2018}, {"rdquo", 0x201D}, {"ldquo", 0x201C}};
  size_t semi = html.find(';', i);
  if (semi == std::string::npos || semi - i > 12) return 0;
  std::string name = html.substr(i + 1, semi - i - 1);
  if (name.size() > 1 && name[0] == '#') {
    const bool hex = name[1] == 'x' || name[1] == 'X';
    char* end = nullptr;
    unsigned long cp = std::strtoul(name.c_str() + (hex ? 2 : 1), &end, hex ? 16 : 10);
    if (!end || *end) return 0;
    append_utf8(out, cp);
    return semi - i + 1;
  }
  auto it = kNamed.find(name);
  if (it == kNamed.end()) return 0;
  append_utf8(out, it->second);
  return semi - i + 1;
}

// The end of the tag starting at html[i] == '<' (index of its '>'), minding
// quoted attribute values; npos when unterminated.
size_t tag_end(const std::string& html, size_t i) {
  char quote = 0;
  for (size_t k = i + 1; k < html.size(); ++k) {
    char c = html[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return k;
    }
  }
  return std::string::npos;
}

std::string tag_name(const std::string& html, size_t i, bool& closing) {
  size_t k = i + 1;
  closing = k < html.size() && html[k] == '/';
  if (closing) ++k;
  size_t b = k;
  while (k < html.size() && (std::isalnum(static_cast<unsigned char>(html[k])) || html[k] == '-')) ++k;
  return ascii_lower(html.substr(b, k - b));
}

// The value of attribute `attr` in the tag text `tag` ("" when absent).
std::string attribute(const std::string& tag, const std::string& attr) {
  std::string low = ascii_lower(tag);
  size_t pos = 0;
  while ((pos = low.find(attr, pos)) != std::string::npos) {
    const bool boundary = pos > 0 && std::isspace(static_cast<unsigned char>(low[pos - 1]));
    size_t k = pos + attr.size();
    while (k < low.size() && std::isspace(static_cast<unsigned char>(low[k]))) ++k;
    if (boundary && k < low.size() && low[k] == '=') {
      ++k;
      while (k < low.size() && std::isspace(static_cast<unsigned char>(low[k]))) ++k;
      if (k < tag.size() && (tag[k] == '"' || tag[k] == '\'')) {
        size_t end = tag.find(tag[k], k + 1);
        return tag.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1);
      }
      size_t end = k;
      while (end < tag.size() && !std::isspace(static_cast<unsigned char>(tag[end])) && tag[end] != '>') ++end;
      return tag.substr(k, end - k);
    }
    pos = k;
  }
  return "";
}

const std::set<std::string> kSkipped = {"script", "style", "noscript", "template", "svg", "head"};
const std::set<std::string> kBlocks = {
    "p",     "div",        "br",  "li", "ul",    "ol",      "h1",      "h2",         "h3",     "h4",  "h5",
    "h6",    "tr",         "td",  "th", "table", "section", "article", "header",     "footer", "nav", "main",
    "aside", "blockquote", "pre", "hr", "title", "dt",      "dd",      "figcaption", "form"};
const std::set<std::string> kVoid = {"area",  "base", "br",   "col",    "embed", "hr", "img",
                                     "input", "link", "meta", "source", "track", "wbr"};

}  // namespace

std::string to_utf8(const std::string& bytes) { return utf8::repair(bytes, utf8::Invalid::latin1); }

std::string html_to_text(const std::string& html) {
  std::string raw;
  raw.reserve(html.size() / 2);
  size_t i = 0;
  while (i < html.size()) {
    const char c = html[i];
    if (c == '&') {
      size_t used = decode_entity(html, i, raw);
      if (used) {
        i += used;
        continue;
      }
      raw += c;
      ++i;
      continue;
    }
    if (c != '<') {
      raw += c;
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      size_t end = html.find("-->", i + 4);
      i = end == std::string::npos ? html.size() : end + 3;
      continue;
    }
    bool closing = false;
    const std::string name = tag_name(html, i, closing);
    if (name.empty() && !(i + 1 < html.size() && (html[i + 1] == '!' || html[i + 1] == '?'))) {
      raw += c;  // a lone '<' in text
      ++i;
      continue;
    }
    size_t end = tag_end(html, i);
    if (end == std::string::npos) break;
    i = end + 1;
    if (!closing && kSkipped.count(name)) {
      // Skip to the matching close tag; these contain no visible text.
      size_t close = ascii_lower(html.substr(i)).find("</" + name);
      if (close == std::string::npos) break;
      size_t close_end = tag_end(html, i + close);
      i = close_end == std::string::npos ? html.size() : close_end + 1;
      continue;
    }
    if (kBlocks.count(name))
      raw += '\n';
    else
      raw += ' ';
  }
  // One line per block, inner whitespace collapsed, blank lines dropped.
  std::string out;
  std::istringstream lines(raw);
  for (std::string line; std::getline(lines, line);) {
    std::string collapsed;
    bool space = false;
    for (char ch : line) {
      if (std::isspace(static_cast<unsigned char>(ch))) {
        space = !collapsed.empty();
      } else {
        if (space) collapsed += ' ';
        collapsed += ch;
        space = false;
      }
    }
    if (collapsed.empty()) continue;
    if (!out.empty()) out += '\n';
    out += collapsed;
  }
  return out;
}

Result<std::string> select_css(const std::string& html, const std::string& selector) {
  std::string tag, id, cls;
  const std::string s = selector;
  size_t k = 0;
  while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '-')) ++k;
  tag = ascii_lower(s.substr(0, k));
  if (k < s.size() && (s[k] == '#' || s[k] == '.')) {
    const char kind = s[k];
    std::string value = s.substr(k + 1);
    const bool simple = !value.empty() && std::all_of(value.begin(), value.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
    });
    if (!simple)
      k = std::string::npos;
    else
      (kind == '#' ? id : cls) = value;
    if (simple) k = s.size();
  }
  if (k != s.size() || (tag.empty() && id.empty() && cls.empty()))
    return Error{"selector", "css_selector '" + selector +
                                 "' is not supported; use a tag ('article'), '#id', '.class', 'tag.class' or 'tag#id'"};

  std::vector<std::string> parts;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    bool closing = false;
    const std::string name = tag_name(html, i, closing);
    size_t end = tag_end(html, i);
    if (end == std::string::npos) break;
    const std::string open = html.substr(i, end - i + 1);
    i = end + 1;
    if (closing || name.empty()) continue;
    if (!tag.empty() && name != tag) continue;
    if (!id.empty() && attribute(open, "id") != id) continue;
    if (!cls.empty()) {
      std::istringstream classes(attribute(open, "class"));
      bool found = false;
      for (std::string c; classes >> c;) found = found || c == cls;
      if (!found) continue;
    }
    if (kVoid.count(name) || (open.size() >= 2 && open[open.size() - 2] == '/')) continue;
    // The matching close tag, counting nested elements of the same name.
    int depth = 1;
    size_t j = i;
    size_t content_end = html.size();
    while (depth > 0 && (j = html.find('<', j)) != std::string::npos) {
      bool cl = false;
      const std::string n = tag_name(html, j, cl);
      size_t e = tag_end(html, j);
      if (e == std::string::npos) break;
      if (n == name) depth += cl ? -1 : 1;
      if (depth == 0) content_end = j;
      j = e + 1;
    }
    parts.push_back(html.substr(i, content_end - i));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "\n<br>") + p;
  return out;
}

std::string summarize_text(const std::string& text) {
  // Clean: no [12]-style references, only letters, digits, '.' and spaces.
  std::string clean;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      size_t j = i + 1;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j < text.size() && text[j] == ']') {
        clean += ' ';
        i = j;
        continue;
      }
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalnum(c) || c == '.')
      clean += static_cast<char>(c);
    else if (std::isspace(c) || c == '!' || c == '?')
      clean += c == '!' || c == '?' ? '.' : ' ';
  }
  // Sentences end at '.' followed by whitespace.
  std::vector<std::string> sentences;
  std::string cur;
  for (size_t i = 0; i < clean.size(); ++i) {
    cur += clean[i];
    if (clean[i] == '.' && (i + 1 == clean.size() || clean[i + 1] == ' ')) {
      sentences.push_back(cur);
      cur.clear();
    }
  }
  sentences.push_back(cur);
  std::vector<std::vector<std::string>> words;
  std::vector<std::string> kept;
  for (auto& s : sentences) {
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(ascii_lower(x));
    if (w.empty()) continue;
    std::string trimmed;
    std::istringstream again(s);
    for (std::string x; again >> x;) trimmed += (trimmed.empty() ? "" : " ") + x;
    kept.push_back(trimmed);
    words.push_back(std::move(w));
  }
  if (kept.empty()) return "";
  std::unordered_map<std::string, double> freq;
  double total = 0;
  for (const auto& w : words)
    for (const auto& x : w) {
      freq[x] += 1;
      total += 1;
    }
  for (auto& [w, f] : freq) f /= total;
  std::vector<std::pair<double, size_t>> scored;
  for (size_t i = 0; i < kept.size(); ++i) {
    double score = 0;
    for (const auto& x : words[i]) score += freq[x];
    score += (1.0 - std::abs(static_cast<double>(words[i].size()) - 15.0) / 15.0) * 0.1;
    if (i > 0) {
      std::set<std::string> mine(words[i].begin(), words[i].end());
      std::set<std::string> prev(words[i - 1].begin(), words[i - 1].end());
      size_t common = 0;
      for (const auto& x : mine) common += prev.count(x);
      score += static_cast<double>(common) / static_cast<double>(words[i].size()) * 0.1;
    }
    scored.push_back({score, i});
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string out;
  for (size_t k = 0; k < scored.size() && k < 3; ++k) {
    std::string s = kept[scored[k].second];
    while (!s.empty() && s.back() == '.') s.pop_back();
    out += (out.empty() ? "" : ". ") + s;
  }
  return out + ".";
}

}  // namespace kaisha::tools
