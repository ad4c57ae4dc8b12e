// PKCE (RFC 7636) with the S256 method, the only one the MCP authorization
// spec lets a client use.
#pragma once

#include <string>

namespace kaisha::mcp {

struct Pkce {
  std::string verifier;   // 64 characters of [A-Za-z0-9-._~], from a CSPRNG
  std::string challenge;  // BASE64URL(SHA256(verifier)), unpadded
};

// A fresh verifier and its challenge. Throws std::runtime_error only when the
// system's random source fails.
Pkce make_pkce();

// BASE64URL(SHA256(verifier)) without padding.
std::string s256_challenge(const std::string& verifier);

// `bytes` random bytes as unpadded base64url: state values, nonces.
std::string random_token(size_t bytes);

// Standard base64 with padding (HTTP Basic credentials).
std::string base64(const std::string& data);

}  // namespace kaisha::mcp
