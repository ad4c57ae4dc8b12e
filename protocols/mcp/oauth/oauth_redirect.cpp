#include "protocols/mcp/oauth/oauth_redirect.hpp"

#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return utf8::repair(out);  // text from the network: valid UTF-8 from here on
}

}  // namespace

std::map<std::string, std::string> parse_query(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i <= query.size()) {
    size_t amp = query.find('&', i);
    if (amp == std::string::npos) amp = query.size();
    const std::string pair = query.substr(i, amp - i);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      out.emplace(decode(pair.substr(0, eq)), eq == std::string::npos ? "" : decode(pair.substr(eq + 1)));
    }
    i = amp + 1;
  }
  return out;
}

std::string query_of(const std::string& url) {
  const size_t q = url.find('?');
  if (q == std::string::npos) return "";
  const size_t hash = url.find('#', q);
  return url.substr(q + 1, hash == std::string::npos ? std::string::npos : hash - q - 1);
}

bool is_redirect_to(const std::string& url, const std::string& redirect_uri) {
  const size_t q = url.find('?');
  return url.substr(0, q) == redirect_uri.substr(0, redirect_uri.find('?'));
}

Result<std::string> authorization_code(const std::string& url, const AuthorizationResponseCheck& check) {
  const auto q = parse_query(query_of(url));
  auto get = [&](const char* k) -> const std::string* {
    auto it = q.find(k);
    return it == q.end() ? nullptr : &it->second;
  };
  if (const auto* e = get("error")) {
    const auto* d = get("error_description");
    return Error{"oauth", "the authorization server refused: " + *e + (d ? " (" + *d + ")" : "")};
  }
  const auto* state = get("state");
  if (!state || *state != check.expected_state)
    return Error{"oauth", "the authorization response carries a state that is not ours (refused: possible CSRF)"};
  if (const auto* iss = get("iss")) {
    if (*iss != check.issuer)
      return Error{"oauth", "the authorization response names issuer '" + *iss + "' but the request went to '" +
                                check.issuer + "' (refused, RFC 9207)"};
  } else if (check.iss_advertised) {
    return Error{"oauth",
                 "the authorization server advertises the iss parameter but its response has none (refused, RFC 9207)"};
  }
  const auto* code = get("code");
  if (!code || code->empty()) return Error{"oauth", "the authorization response carries no code"};
  return *code;
}

}  // namespace kaisha::mcp
