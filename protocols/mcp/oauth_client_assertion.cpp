#include "protocols/mcp/oauth_client_assertion.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <vector>

#include "protocols/mcp/oauth_pkce.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::mcp {
namespace {

std::string base64url(const std::string& s) {
  std::string b = base64(s);
  for (char& c : b) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!b.empty() && b.back() == '=') b.pop_back();
  return b;
}

// A JWS ES256 signature is R || S, 32 bytes each; OpenSSL gives DER.
Result<std::string> der_to_raw(const unsigned char* der, size_t len) {
  const unsigned char* p = der;
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len)),
                                                            ECDSA_SIG_free);
  if (!sig) return Error{"oauth", "the ES256 signature could not be decoded"};
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string out(64, '\0');
  if (BN_bn2binpad(r, reinterpret_cast<unsigned char*>(out.data()), 32) != 32 ||
      BN_bn2binpad(s, reinterpret_cast<unsigned char*>(out.data()) + 32, 32) != 32)
    return Error{"oauth", "the ES256 signature does not fit P-256"};
  return out;
}

}  // namespace

Result<std::string> make_client_assertion(const std::string& private_key_pem, const std::string& alg,
                                          const std::string& client_id, const std::string& audience, int64_t now) {
  if (alg != "ES256" && alg != "RS256")
    return Error{"oauth", "signing algorithm '" + alg + "' is not supported (ES256 or RS256)"};
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())),
                                                BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key) return Error{"oauth", "the client's private key is not a readable PEM private key"};
  const int type = EVP_PKEY_base_id(key.get());
  if ((alg == "ES256" && type != EVP_PKEY_EC) || (alg == "RS256" && type != EVP_PKEY_RSA))
    return Error{"oauth", "the client's private key does not suit " + alg};

  const json header = {{"alg", alg}, {"typ", "JWT"}};
  const json claims = {{"iss", client_id}, {"sub", client_id}, {"aud", audience},
                       {"iat", now},       {"exp", now + 300},  {"jti", random_token(16)}};
  const std::string input = base64url(header.dump()) + "." + base64url(claims.dump());

  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
    return Error{"oauth", "signing the client assertion failed"};
  std::vector<unsigned char> sig(len);
  if (EVP_DigestSign(ctx.get(), sig.data(), &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
    return Error{"oauth", "signing the client assertion failed"};
  std::string raw;
  if (alg == "ES256") {
    auto r = der_to_raw(sig.data(), len);
    if (!r.ok()) return r.error();
    raw = *r;
  } else {
    raw.assign(reinterpret_cast<const char*>(sig.data()), len);
  }
  return input + "." + base64url(raw);
}

}  // namespace kaisha::mcp
