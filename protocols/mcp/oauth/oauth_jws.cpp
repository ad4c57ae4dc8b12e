#include "protocols/mcp/oauth/oauth_jws.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>

#include <vector>

#include "protocols/mcp/oauth/oauth_pkce.hpp"

namespace kaisha::mcp {
namespace {

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

std::string base64url(const std::string& data) {
  std::string b = base64(data);
  for (char& c : b) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!b.empty() && b.back() == '=') b.pop_back();
  return b;
}

Result<PrivateKey> read_private_key(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (!key) return Error{"oauth", "not a readable PEM private key"};
  return PrivateKey(key, EVP_PKEY_free);
}

Result<std::string> jws_sign(EVP_PKEY* key, const std::string& alg, const json& header, const json& claims) {
  if (alg != "ES256" && alg != "RS256")
    return Error{"oauth", "signing algorithm '" + alg + "' is not supported (ES256 or RS256)"};
  const int type = EVP_PKEY_base_id(key);
  if ((alg == "ES256" && type != EVP_PKEY_EC) || (alg == "RS256" && type != EVP_PKEY_RSA))
    return Error{"oauth", "the private key does not suit " + alg};
  const std::string input = base64url(header.dump()) + "." + base64url(claims.dump());
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) != 1)
    return Error{"oauth", "signing failed"};
  std::vector<unsigned char> sig(len);
  if (EVP_DigestSign(ctx.get(), sig.data(), &len, data, input.size()) != 1) return Error{"oauth", "signing failed"};
  std::string raw(reinterpret_cast<const char*>(sig.data()), len);
  if (alg == "ES256") {
    auto r = der_to_raw(sig.data(), len);
    if (!r.ok()) return r.error();
    raw = *r;
  }
  return input + "." + base64url(raw);
}

}  // namespace kaisha::mcp
