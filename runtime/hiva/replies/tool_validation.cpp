#include "runtime/hiva/replies/tool_validation.hpp"

#include <algorithm>
#include <string>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

constexpr size_t kViolationsListed = 5;

struct Token {
  enum Kind { name, op, string, newline } kind;
  std::string_view text;
  size_t line;
  bool line_first;  // first token of its physical line, at column 0
  bool in_fstring;  // scanned from an f-string's braces
};

struct Violation {
  size_t line;
  std::string what;
  const char* rule;
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

bool is_string_prefix(std::string_view word) {
  std::string w = ascii_lower(word);
  return w == "r" || w == "u" || w == "b" || w == "f" || w == "br" || w == "rb" || w == "fr" || w == "rf";
}

// Python's tokens, as far as the rules need them: names, one-character
// operators, strings (skipped, f-string expressions scanned), logical line
// ends. Stops at an unterminated string: Python would not compile the rest.
class Scanner {
 public:
  Scanner(std::vector<Token>& tokens, std::vector<Violation>& violations) : tokens_(tokens), violations_(violations) {}

  // `code` starts on line `line`; `fstring` marks tokens of f-string braces.
  bool scan(std::string_view code, size_t line, bool fstring) {
    size_t depth = 0, line_start = 0;
    for (size_t i = 0; i < code.size();) {
      char c = code[i];
      if (c == '\n') {
        if (depth == 0 && !tokens_.empty() && tokens_.back().kind != Token::newline)
          tokens_.push_back({Token::newline, "", line, false, fstring});
        ++line, ++i, line_start = i;
      } else if (c == '\\' && i + 1 < code.size() && code[i + 1] == '\n') {
        i += 2, ++line, line_start = i;
      } else if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\\') {
        ++i;
      } else if (c == '#') {
        while (i < code.size() && code[i] != '\n') ++i;
      } else if (c == '"' || c == '\'') {
        if (!string_at(code, i, line, false)) return false;
      } else if (is_name_start(c)) {
        size_t e = i;
        while (e < code.size() && is_name_char(code[e])) ++e;
        std::string_view word = code.substr(i, e - i);
        if (e < code.size() && (code[e] == '"' || code[e] == '\'') && is_string_prefix(word)) {
          bool f = word.find_first_of("fF") != std::string_view::npos;
          i = e;
          if (!string_at(code, i, line, f)) return false;
        } else {
          tokens_.push_back({Token::name, word, line, !fstring && i == line_start, fstring});
          i = e;
        }
      } else if (c >= '0' && c <= '9') {
        while (i < code.size() && (is_name_char(code[i]) || code[i] == '.')) ++i;
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        violations_.push_back({line, "a non-ASCII character outside strings and comments", "ASCII names"});
        i += std::max<size_t>(1, utf8::decode(code.substr(i)).length);
      } else if (c == '\0') {
        violations_.push_back({line, "a NUL byte", "UTF-8"});
        ++i;
      } else {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
        tokens_.push_back({Token::op, code.substr(i, 1), line, false, fstring});
        ++i;
      }
    }
    return true;
  }

 private:
  // The string literal opening at code[i]; moves i past it.
  bool string_at(std::string_view code, size_t& i, size_t& line, bool fstring) {
    const char q = code[i];
    const bool triple = code.substr(i).starts_with(std::string(3, q));
    const size_t open_line = line;
    size_t body = i + (triple ? 3 : 1), j = body;
    for (;;) {
      if (j >= code.size() || (!triple && code[j] == '\n')) {
        violations_.push_back({open_line, "a string that is never closed", "strings"});
        return false;
      }
      if (code[j] == '\\') {
        if (j + 1 < code.size() && code[j + 1] == '\n') ++line;
        j += 2;
        continue;
      }
      if (triple ? code.substr(j).starts_with(std::string(3, q)) : code[j] == q) break;
      if (code[j] == '\n') ++line;
      ++j;
    }
    tokens_.push_back({Token::string, code.substr(i, j - i), open_line, false, fstring});
    if (fstring && !expressions(code.substr(body, j - body), open_line)) return false;
    i = j + (triple ? 3 : 1);
    return true;
  }

  // The code inside an f-string's single braces ("{{" is a literal brace).
  bool expressions(std::string_view body, size_t line) {
    for (size_t k = 0; k < body.size(); ++k) {
      if (body[k] == '\n') ++line;
      if (body[k] != '{') continue;
      if (k + 1 < body.size() && body[k + 1] == '{') {
        ++k;
        continue;
      }
      size_t depth = 1, e = k + 1;
      for (; e < body.size() && depth > 0; ++e) {
        if (body[e] == '{') ++depth;
        if (body[e] == '}') --depth;
      }
      std::string_view expr = body.substr(k + 1, (depth == 0 ? e - 1 : e) - (k + 1));
      if (!scan(expr, line, true)) return false;
      for (char ch : expr)
        if (ch == '\n') ++line;
      k = e - 1;
    }
    return true;
  }

  std::vector<Token>& tokens_;
  std::vector<Violation>& violations_;
};

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

void check_names(const std::vector<Token>& tokens, std::vector<Violation>& out) {
  const std::vector<std::string_view>& modules = forbidden_modules();
  std::string_view statement_first, from_module;
  bool after_import = false;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    const Token* prev = k > 0 ? &tokens[k - 1] : nullptr;
    if (t.kind == Token::newline || (t.kind == Token::op && t.text == ";")) {
      statement_first = from_module = "";
      after_import = false;
      continue;
    }
    if (statement_first.empty()) statement_first = t.text;
    if (t.kind != Token::name) continue;
    const bool attribute = prev && prev->kind == Token::op && prev->text == ".";
    const bool importing = statement_first == "import" || statement_first == "from";
    if (statement_first == "from" && prev && prev->text == "from") from_module = t.text;
    if (t.text == "import") after_import = true;

    if (std::find(modules.begin(), modules.end(), t.text) != modules.end())
      out.push_back({t.line, std::string(importing ? "imports " : "uses ") + std::string(t.text), "forbidden module"});
    else if (one_of(t.text, {"__import__", "__builtins__", "__subclasses__", "__globals__"}))
      out.push_back({t.line, "uses " + std::string(t.text), "escape hatch"});
    else if (!attribute && one_of(t.text, {"globals", "locals"}))
      out.push_back({t.line, "uses " + std::string(t.text) + "()", "escape hatch"});
    else if (!attribute && one_of(t.text, {"eval", "exec"}))
      out.push_back({t.line, "uses " + std::string(t.text), "no eval/exec"});
    else if (t.text == "modules" &&
             ((attribute && k >= 2 && tokens[k - 2].text == "sys") || (from_module == "sys" && after_import)))
      out.push_back({t.line, std::string(importing ? "imports" : "uses") + " sys.modules", "escape hatch"});
  }
}

// The top-level `def tool_function(input_data`.
void check_signature(const std::vector<Token>& tokens, std::vector<Violation>& out) {
  for (size_t k = 0; k + 2 < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.kind != Token::name || t.text != "def" || !t.line_first || tokens[k + 1].text != "tool_function") continue;
    if (tokens[k + 2].text != "(") break;
    if (k + 3 < tokens.size() && tokens[k + 3].kind == Token::name && tokens[k + 3].text == "input_data") return;
    std::string first =
        k + 3 < tokens.size() && tokens[k + 3].kind == Token::name ? std::string(tokens[k + 3].text) : "missing";
    out.push_back({t.line, "tool_function's first parameter is " + first + ", expected input_data", "signature"});
    return;
  }
  out.push_back({0, "no top-level `def tool_function(input_data, ...)`", "signature"});
}

Error rejected(std::vector<Violation> found) {
  std::stable_sort(found.begin(), found.end(), [](const Violation& a, const Violation& b) { return a.line < b.line; });
  // One finding per line and kind: "ｏｓ" is two non-ASCII characters, one mistake.
  found.erase(std::unique(found.begin(), found.end(),
                          [](const Violation& a, const Violation& b) { return a.line == b.line && a.what == b.what; }),
              found.end());
  std::string message = "tool code: ";
  for (size_t i = 0; i < found.size() && i < kViolationsListed; ++i) {
    if (i) message += "; ";
    if (found[i].line > 0) message += "line " + std::to_string(found[i].line) + ": ";
    message += found[i].what + " (rule: " + found[i].rule + ")";
  }
  if (found.size() > kViolationsListed)
    message += "; and " + std::to_string(found.size() - kViolationsListed) + " more";
  return Error{"tool", message};
}

}  // namespace

const std::vector<std::string_view>& forbidden_modules() {
  static const std::vector<std::string_view> kModules = {
      "os", "posix", "subprocess", "importlib", "ctypes", "socket", "shutil", "multiprocessing", "pty", "builtins"};
  return kModules;
}

Status validate_tool_source(std::string_view code, const ToolCodeLimits& limits) {
  if (code.size() > limits.max_bytes)
    return Error{"tool", "tool code: " + std::to_string(code.size()) + " bytes, over the limit of " +
                             std::to_string(limits.max_bytes) + " (rule: size)"};
  if (std::optional<size_t> bad = reply::invalid_utf8_at(code))
    return Error{"tool", "tool code: line " + std::to_string(reply::line_of(code, *bad - 1)) + ": " +
                             reply::invalid_utf8_finding(code, *bad) + " (rule: UTF-8)"};
  std::vector<Token> tokens;
  std::vector<Violation> found;
  Scanner scanner(tokens, found);
  if (scanner.scan(code, 1, false)) {
    check_names(tokens, found);
    check_signature(tokens, found);
  }
  if (found.empty()) return Status::Ok();
  return rejected(std::move(found));
}

}  // namespace kaisha::hiva
