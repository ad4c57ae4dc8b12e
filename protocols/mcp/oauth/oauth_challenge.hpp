// OAuthChallenge: what a protected MCP server's `WWW-Authenticate` header
// asks for (RFC 6750 §3, RFC 9728 §5.1). Pure parsing, no network.
//
//   WWW-Authenticate: Bearer resource_metadata="https://h/.well-known/...",
//                     scope="mcp:basic mcp:write", error="insufficient_scope"
//
// Only the Bearer and DPoP (RFC 9449 §7.1) challenges are read; other
// schemes in the same header (a server may offer several) are skipped. Parameter names are matched without
// regard to case; quoted values have their backslash escapes removed.
#pragma once

#include <string>
#include <string_view>

namespace kaisha::mcp {

struct OAuthChallenge {
  bool bearer = false;            // a Bearer or DPoP challenge was present
  std::string resource_metadata;  // RFC 9728 protected resource metadata URL, or ""
  std::string scope;              // space-separated scopes the server wants, or ""
  std::string error;              // e.g. "invalid_token", "insufficient_scope", or ""
  std::string error_description;
};

// Never throws; a malformed header yields what could be read before the fault.
OAuthChallenge parse_www_authenticate(std::string_view header);

}  // namespace kaisha::mcp
