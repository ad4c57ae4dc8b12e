#include "protocols/mcp/oauth/oauth_pkce.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <stdexcept>
#include <vector>

namespace kaisha::mcp {
namespace {

std::string encode(const unsigned char* data, size_t n, bool url) {
  static const char* std_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  static const char* url_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const char* a = url ? url_alphabet : std_alphabet;
  std::string out;
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    const unsigned v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    out += {a[(v >> 18) & 63], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
  }
  if (i + 1 == n) {
    const unsigned v = data[i] << 16;
    out += {a[(v >> 18) & 63], a[(v >> 12) & 63]};
    if (!url) out += "==";
  } else if (i + 2 == n) {
    const unsigned v = (data[i] << 16) | (data[i + 1] << 8);
    out += {a[(v >> 18) & 63], a[(v >> 12) & 63], a[(v >> 6) & 63]};
    if (!url) out += "=";
  }
  return out;
}

}  // namespace

std::string random_token(size_t bytes) {
  std::vector<unsigned char> b(bytes);
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  return encode(b.data(), b.size(), true);
}

std::string s256_challenge(const std::string& verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  return encode(digest, sizeof digest, true);
}

Pkce make_pkce() {
  Pkce p;
  p.verifier = random_token(48);  // 48 bytes -> 64 characters (RFC 7636: 43..128)
  p.challenge = s256_challenge(p.verifier);
  return p;
}

std::string base64(const std::string& data) {
  return encode(reinterpret_cast<const unsigned char*>(data.data()), data.size(), false);
}

}  // namespace kaisha::mcp
