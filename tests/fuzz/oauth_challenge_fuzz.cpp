// What an MCP server or authorization server sends the OAuth client as text:
// a WWW-Authenticate header, and the redirect URL of an authorization
// response with its query. Any bytes must parse without throwing; fields are
// read only from a Bearer or DPoP challenge; decoded query text is valid UTF-8; a
// code is only accepted with our state; the metadata URL lists end with the
// root fallbacks.
#include <cstdint>
#include <string>

#include "protocols/mcp/oauth/oauth_challenge.hpp"
#include "protocols/mcp/oauth/oauth_discovery.hpp"
#include "protocols/mcp/oauth/oauth_redirect.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace mcp = kaisha::mcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  const mcp::OAuthChallenge c = mcp::parse_www_authenticate(text);
  if (!c.bearer)
    check(c.scope.empty() && c.error.empty() && c.resource_metadata.empty() && c.error_description.empty(),
          "parameters are only read from a Bearer or DPoP challenge");

  for (const auto& [k, v] : mcp::parse_query(mcp::query_of(text)))
    check(valid_utf8(k) && valid_utf8(v), "decoded query text is valid UTF-8");

  const auto code = mcp::authorization_code(text, {"the-state", "https://as.example", size % 2 == 0});
  if (code.ok()) {
    check(!code->empty(), "an accepted code is not empty");
    check(mcp::parse_query(mcp::query_of(text)).at("state") == "the-state", "a code is accepted only with our state");
  }

  const auto prm = mcp::protected_resource_metadata_urls(text, "");
  check(!prm.empty() && prm.back().size() >= 37 &&
            prm.back().compare(prm.back().size() - 37, 37, "/.well-known/oauth-protected-resource") == 0,
        "the root protected resource metadata URL is tried last");
  const auto as = mcp::authorization_server_metadata_urls(text);
  check(as.size() == 2 || as.size() == 3, "two metadata URLs for an issuer without a path, three with one");
  (void)mcp::resource_matches(text, "https://h/mcp");
  (void)mcp::select_scope(text, {text}, text, true, {"offline_access"});
  return 0;
}
