// OAuthTokenStore: the OAuth tokens and client registrations kaisha's MCP
// client holds, in one JSON file outside the journal, readable by its owner
// only (created 0600 in a 0700 directory; a file found with wider
// permissions is narrowed to 0600 on the next write).
//
// Tokens are keyed by the MCP server's URL (the protected resource), each
// remembering the authorization server that issued it; registrations made
// with dynamic client registration are keyed by that server's issuer, so a
// registration is never presented to another authorization server.
//
// The default file is $XDG_STATE_HOME/kaisha/mcp-oauth-tokens.json
// (~/.local/state/kaisha/... when XDG_STATE_HOME is unset); a server's
// `auth.token_file` names another. Every call reads or rewrites the file
// (atomically: a temporary file renamed over it), so processes sharing it see
// each other's tokens. Thread-safe. Nothing here logs a token or a secret.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::mcp {

struct OAuthTokens {
  std::string issuer;  // the authorization server that issued them
  std::string access_token;
  std::string refresh_token;          // "" when none was issued
  std::string scope;                  // the scope asked for (kept for step-up unions)
  int64_t expires_at = 0;             // unix seconds; 0 = not said
  std::string token_type = "Bearer";  // or "DPoP": then bound to dpop_key
  std::string dpop_key;               // PEM private key the DPoP-bound tokens need, or ""
  int64_t lifetime = 0;               // expires_in as issued, seconds; 0 = not said
};

struct OAuthClientRegistration {
  std::string client_id;
  std::string client_secret;  // "" for a public client
  std::string auth_method;    // token_endpoint_auth_method: none, client_secret_basic, client_secret_post
};

class OAuthTokenStore {
 public:
  // `path` "" keeps everything in memory (nothing survives the process).
  explicit OAuthTokenStore(std::string path);

  // $XDG_STATE_HOME/kaisha/mcp-oauth-tokens.json, or under ~/.local/state.
  static std::string default_path();

  const std::string& path() const { return path_; }

  std::optional<OAuthTokens> tokens(const std::string& resource);
  Status put_tokens(const std::string& resource, const OAuthTokens& t);
  Status forget_tokens(const std::string& resource);

  std::optional<OAuthClientRegistration> registration(const std::string& issuer);
  Status put_registration(const std::string& issuer, const OAuthClientRegistration& r);

 private:
  std::string path_;
  std::mutex mu_;
  std::string memory_;  // the document when path_ is ""
};

}  // namespace kaisha::mcp
