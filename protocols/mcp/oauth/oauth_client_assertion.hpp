// private_key_jwt client authentication (RFC 7523 §2.2, RFC 7521): a short
// JWT signed with the client's private key stands for its secret at the
// token endpoint.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::mcp {

// A signed JWT: iss = sub = `client_id`, aud = `audience` (the authorization
// server's issuer identifier, as RFC 7523bis asks), iat = `now`, exp =
// now + 300 s, a random jti. `alg` is ES256 (a P-256 key) or RS256 (an RSA
// key); `private_key_pem` is a PEM private key. An Error (never naming key
// material) when the key cannot be read or does not suit `alg`.
Result<std::string> make_client_assertion(const std::string& private_key_pem, const std::string& alg,
                                          const std::string& client_id, const std::string& audience, int64_t now);

}  // namespace kaisha::mcp
