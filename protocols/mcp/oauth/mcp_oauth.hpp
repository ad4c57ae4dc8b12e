// McpOAuth: OAuth 2.1 authorization for one Streamable HTTP MCP server, as
// the MCP authorization spec (2025-11-25, 2026-07-28) asks of a client.
//
// The HTTP transport sends request_headers() with every request
// (`Authorization: Bearer`, or `Authorization: DPoP` and a fresh `DPoP`
// proof when the token is DPoP-bound, RFC 9449) and,
// when the server refuses a request (401, or 403 insufficient_scope), calls
// challenged(); the request is retried once that reports success. In
// between this runs, on the HttpClient's loop thread and never blocking it:
//
//   1. protected resource metadata (RFC 9728): the WWW-Authenticate
//      `resource_metadata` URL, else the path-inserted then the root
//      well-known URL; its `resource` must stand for the server URL. A
//      server without any (the 2025-03-26 shape) is its own authorization
//      server.
//   2. authorization server metadata (RFC 8414 / OpenID discovery) in the
//      spec's order; its `issuer` must be the one asked for, and it must
//      list S256 in `code_challenge_methods_supported` (else: refused).
//   3. a stored token for the server from the same issuer with a refresh
//      token: refreshed first (not on a step-up); a refused refresh falls
//      back to a new authorization.
//   4. the client: a pre-registered client_id (authenticated with its secret
//      or a private_key_jwt assertion), else a client ID metadata
//      document URL (when the server supports those), else a registration
//      this store made with that issuer, else dynamic client registration
//      (RFC 7591).
//   5. the grant: client_credentials, a JWT bearer assertion (RFC 7523
//      §2.1, workload identity), an enterprise identity assertion (an ID
//      token exchanged at the identity provider, then a JWT bearer grant),
//      or authorization_code with PKCE S256,
//      `state`, `resource` (RFC 8707) and the selected scope. The
//      authorization request is first sent by kaisha itself: an
//      authorization server that approves without a person (redirecting at
//      once to the redirect_uri) completes the flow; for one that shows a
//      sign-in page, ask_user is given the URL to open and the browser's
//      redirect is awaited at the loopback redirect_uri (RFC 8252).
//   6. the token, stored (OAuthTokenStore) for the next run, with its
//      expiry when the response gave `expires_in`. When the
//      authorization server lists ES256 in dpop_signing_alg_values_supported
//      the token requests carry DPoP proofs of a P-256 key kept with the
//      tokens; a `use_dpop_nonce` answer (token endpoint or MCP server) is
//      retried once with the nonce given.
//
// Ahead of expiry: before each request the transport asks refresh_due();
// a token within its refresh margin of expiry (oauth_token_expiry.hpp: a
// tenth of its lifetime, at most 60 s) that has a refresh token is refreshed
// first (steps 1-3 and 6, no new authorization). When that fails the request
// goes with the old token and a 401 starts the flow above.
//
// Errors say which server demanded authorization and what failed (the URLs
// tried, the HTTP status, the missing capability); no token or secret ever
// appears in them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "protocols/mcp/oauth/oauth_token_store.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::mcp {

// identity_assertion: enterprise-managed authorization (SEP-990) — the
// user's ID token is exchanged at the enterprise identity provider for an
// identity assertion grant (ID-JAG, RFC 8693 token exchange), which the
// authorization server takes as a JWT bearer assertion.
enum class OAuthGrant { authorization_code, client_credentials, jwt_bearer, identity_assertion };

struct OAuthSettings {
  OAuthGrant grant = OAuthGrant::authorization_code;
  std::string client_id;              // pre-registered client; "" = metadata document or registration
  std::string client_secret;          // for a pre-registered confidential client
  std::string private_key_pem;        // private_key_jwt client authentication instead of a secret
  std::string signing_alg = "ES256";  // of the private_key_jwt assertion: ES256 or RS256
  std::string assertion;              // jwt_bearer: the assertion itself, or
  std::string assertion_file;         //   the file holding it, read at each token request (it may rotate)
                                      // identity_assertion: `assertion`/`assertion_file` hold the ID token
  std::string idp_token_endpoint;     // identity_assertion: the identity provider's token endpoint
  std::string idp_client_id;          //   and kaisha's client there
  std::string client_metadata_url;    // https URL of this client's metadata document (client_id), or ""
  std::string scopes;                 // fixed scope to ask for; "" = chosen from the server's challenge
  std::string redirect_uri = "http://127.0.0.1:8976/oauth/callback";
  std::string client_name = "kaisha";
  // A person signs in: when the authorization server shows a page instead of
  // redirecting, this is called with the URL to open in a browser, and the
  // redirect is awaited at the loopback redirect_uri for user_timeout_ms.
  // Unset: such a server is reported as needing a person.
  std::function<void(const std::string& url)> ask_user;
  int64_t user_timeout_ms = 300'000;
  std::shared_ptr<OAuthTokenStore> store;  // required
  int64_t http_timeout_ms = 30'000;        // each exchange with an authorization server
  // The clocks a token's expiry is measured on (tests replace them): the
  // monotonic one for its lifetime, the wall one (unix seconds) for the
  // expiry stored across runs. Unset: the system's.
  std::function<std::chrono::steady_clock::time_point()> steady_clock;
  std::function<int64_t()> wall_clock;
};

class McpOAuth : public std::enable_shared_from_this<McpOAuth> {
 public:
  // `server_name` names the server in errors; `http` must outlive this.
  static std::shared_ptr<McpOAuth> create(http::HttpClient& http, std::string server_name, std::string server_url,
                                          OAuthSettings settings);

  // The access token to send, "" when there is none yet.
  std::string access_token();

  // The headers that authorize a `method` request to `url` (none before
  // there is a token); `token` receives the access token they carry.
  std::vector<std::pair<std::string, std::string>> request_headers(const std::string& method, const std::string& url,
                                                                   std::string* token = nullptr);

  // True when the access token should be refreshed before the next request
  // (near its expiry, a refresh token stored, not yet tried for this token),
  // or such a refresh is running.
  bool refresh_due();
  // Refreshes ahead of expiry when refresh_due(), then calls `then` once
  // (on the loop thread) however the refresh ended: a failed one leaves the
  // old token, for the server's 401 to renew. Calls `then` at once when
  // nothing is due.
  void refresh_ahead(std::function<void()> then);

  // The server refused a request made with `used_token` ("" = none) with
  // `status` and its WWW-Authenticate header. `done` is called once, on the
  // loop thread: ok when a new token is there to retry with. Challenges that
  // arrive while one is being handled wait for its outcome (at most 256;
  // beyond that they fail at once).
  // `dpop_nonce`: the response's DPoP-Nonce header ("" = none).
  void challenged(int status, const std::string& www_authenticate, const std::string& used_token,
                  const std::string& dpop_nonce, std::function<void(Status)> done);

  struct Impl;

 private:
  McpOAuth() = default;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
