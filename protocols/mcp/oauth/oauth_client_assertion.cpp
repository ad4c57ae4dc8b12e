#include "protocols/mcp/oauth/oauth_client_assertion.hpp"

#include "protocols/mcp/oauth/oauth_jws.hpp"
#include "protocols/mcp/oauth/oauth_pkce.hpp"

namespace kaisha::mcp {

Result<std::string> make_client_assertion(const std::string& private_key_pem, const std::string& alg,
                                          const std::string& client_id, const std::string& audience, int64_t now) {
  auto key = read_private_key(private_key_pem);
  if (!key.ok()) return Error{"oauth", "the client's private key is " + key.error().message};
  const json header = {{"alg", alg}, {"typ", "JWT"}};
  const json claims = {{"iss", client_id}, {"sub", client_id}, {"aud", audience},
                       {"iat", now},       {"exp", now + 300}, {"jti", random_token(16)}};
  return jws_sign(key->get(), alg, header, claims);
}

}  // namespace kaisha::mcp
