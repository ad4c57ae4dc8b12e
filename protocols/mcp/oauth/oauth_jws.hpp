// Compact JWS signing (RFC 7515) for the JWTs the OAuth client makes itself:
// private_key_jwt client assertions and DPoP proofs.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

using PrivateKey = std::shared_ptr<EVP_PKEY>;

// Unpadded base64url.
std::string base64url(const std::string& data);

// The PEM private key's EVP_PKEY, or an Error that names no key material.
Result<PrivateKey> read_private_key(const std::string& pem);

// base64url(header) . base64url(claims) . base64url(signature), signed with
// `key` by `alg`: ES256 (P-256; the signature as R || S, 64 bytes) or RS256.
Result<std::string> jws_sign(EVP_PKEY* key, const std::string& alg, const json& header, const json& claims);

}  // namespace kaisha::mcp
