// The authorization response (RFC 6749 §4.1.2, RFC 9207): the query of the
// URL the authorization server sends the user agent back to, and the checks
// a client makes on it before exchanging the code.
#pragma once

#include <map>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::mcp {

// "a=1&b=x%20y+z" -> {a: "1", b: "x y z"}; the first value of a repeated name wins.
std::map<std::string, std::string> parse_query(const std::string& query);

// The query part of a URL ("" when it has none; the fragment is dropped).
std::string query_of(const std::string& url);

// True when `url` is `redirect_uri` plus a query (the redirect reached us).
bool is_redirect_to(const std::string& url, const std::string& redirect_uri);

struct AuthorizationResponseCheck {
  std::string expected_state;
  std::string issuer;           // the issuer of the metadata the request was built from
  bool iss_advertised = false;  // metadata: authorization_response_iss_parameter_supported
};

// The authorization code in the redirect `url`, or an Error saying why the
// response is refused: an `error` parameter, a state that is not ours, an
// `iss` that is not the issuer by simple string comparison, or no `iss` from
// a server that promised one.
Result<std::string> authorization_code(const std::string& url, const AuthorizationResponseCheck& check);

}  // namespace kaisha::mcp
