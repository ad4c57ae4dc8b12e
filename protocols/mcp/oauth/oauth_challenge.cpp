#include "protocols/mcp/oauth/oauth_challenge.hpp"

#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::mcp {
namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~/:").find(c) != std::string_view::npos;
}

// A cursor over the header; every step stops at the end of the text.
struct Reader {
  std::string_view s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  void skip_space() {
    while (!done() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  std::string_view token() {
    const size_t start = i;
    while (!done() && is_token_char(s[i])) ++i;
    return s.substr(start, i - start);
  }
  std::string quoted() {  // at the opening quote
    std::string out;
    ++i;
    while (!done() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out.push_back(s[i++]);
    }
    if (!done()) ++i;  // the closing quote
    return out;
  }
};

}  // namespace

OAuthChallenge parse_www_authenticate(std::string_view header) {
  OAuthChallenge out;
  Reader r{header};
  bool in_bearer = false;
  while (!r.done()) {
    r.skip_space();
    if (!r.done() && r.s[r.i] == ',') {
      ++r.i;
      continue;
    }
    const size_t before = r.i;
    const std::string_view word = r.token();
    if (word.empty()) {  // a character no grammar allows here: skip it
      r.i = before + 1;
      continue;
    }
    r.skip_space();
    if (r.done() || r.s[r.i] != '=') {
      // A scheme name starts a new challenge (a token68 after it is ignored).
      in_bearer = ascii_lower(word) == "bearer" || ascii_lower(word) == "dpop";
      out.bearer = out.bearer || in_bearer;
      continue;
    }
    ++r.i;  // '='
    r.skip_space();
    std::string value;
    if (!r.done() && r.s[r.i] == '"') {
      value = r.quoted();
    } else {
      value = std::string(r.token());
      while (!r.done() && r.s[r.i] == '=') ++r.i;  // token68 padding
    }
    if (!in_bearer) continue;
    const std::string name = ascii_lower(word);
    if (name == "resource_metadata")
      out.resource_metadata = value;
    else if (name == "scope")
      out.scope = value;
    else if (name == "error")
      out.error = value;
    else if (name == "error_description")
      out.error_description = value;
  }
  return out;
}

}  // namespace kaisha::mcp
