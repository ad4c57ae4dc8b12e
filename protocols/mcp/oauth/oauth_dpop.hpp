// DPoP (RFC 9449): a key pair the client proves possession of with a fresh
// signed proof on each token request and each request made with the token,
// so a stolen access token is useless without the key.
#pragma once

#include <cstdint>
#include <string>

#include "protocols/mcp/oauth/oauth_jws.hpp"

namespace kaisha::mcp {

class DpopKey {
 public:
  // A new P-256 key (ES256). Throws std::runtime_error only when OpenSSL
  // cannot make one.
  static DpopKey generate();
  // A key kept in the token file.
  static Result<DpopKey> from_pem(const std::string& pem);

  std::string pem() const;  // PKCS#8 PEM, for the token file
  json public_jwk() const;  // {kty: EC, crv: P-256, x, y}

  // A proof for one request (RFC 9449 §4.2): typ dpop+jwt, the public key in
  // the header; jti, htm, htu (without query or fragment), iat, and nonce
  // and ath (base64url SHA-256 of the access token) when given.
  std::string proof(const std::string& method, const std::string& url, const std::string& nonce,
                    const std::string& access_token, int64_t now) const;

 private:
  PrivateKey key_;
};

}  // namespace kaisha::mcp
