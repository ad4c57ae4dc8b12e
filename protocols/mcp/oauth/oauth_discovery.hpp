// Where an MCP client looks for authorization metadata, and the checks it
// makes on what it finds (MCP authorization, revisions 2025-11-25 and
// 2026-07-28). Pure functions of URLs and strings, no network.
#pragma once

#include <string>
#include <vector>

namespace kaisha::mcp {

// "https://h:1/a/b?q#f" -> origin "https://h:1", path "/a/b" (query and
// fragment dropped; "" path when there is none).
struct UrlParts {
  std::string origin;
  std::string path;
};
UrlParts split_url(const std::string& url);

// Protected resource metadata (RFC 9728) candidates, in the order tried:
// the URL the server's WWW-Authenticate named (when given), then the
// path-inserted well-known URL, then the root one.
//   server https://h/mcp -> https://h/.well-known/oauth-protected-resource/mcp,
//                           https://h/.well-known/oauth-protected-resource
std::vector<std::string> protected_resource_metadata_urls(const std::string& server_url,
                                                          const std::string& from_challenge);

// Authorization server metadata candidates for an issuer, in the order the
// MCP spec gives: for an issuer with a path (https://h/tenant1)
//   https://h/.well-known/oauth-authorization-server/tenant1
//   https://h/.well-known/openid-configuration/tenant1
//   https://h/tenant1/.well-known/openid-configuration
// and without one (https://h)
//   https://h/.well-known/oauth-authorization-server
//   https://h/.well-known/openid-configuration
std::vector<std::string> authorization_server_metadata_urls(const std::string& issuer);

// True when the protected resource metadata's `resource` may stand for the
// MCP server at `server_url`: same origin, and its path is the server's path
// or a parent of it (RFC 9728 §3.3, RFC 8707 canonical URIs; a trailing
// slash is ignored).
bool resource_matches(const std::string& resource, const std::string& server_url);

// The scope to ask for (MCP "scope selection strategy"): the challenge's
// scope when the server named one, else every scope the resource metadata
// lists, else none (""). `previous` (the scope asked for last time, on a
// step-up) is joined in so that no granted scope is lost; `offline_access`
// is added when the authorization server lists it and a refresh token is
// wanted. Scopes appear once each, in first-seen order.
std::string select_scope(const std::string& challenge_scope, const std::vector<std::string>& resource_scopes,
                         const std::string& previous, bool want_offline_access,
                         const std::vector<std::string>& server_scopes);

}  // namespace kaisha::mcp
