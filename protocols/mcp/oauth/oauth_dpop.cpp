#include "protocols/mcp/oauth/oauth_dpop.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <stdexcept>

#include "protocols/mcp/oauth/oauth_pkce.hpp"

namespace kaisha::mcp {
namespace {

std::string coordinate(EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return "";
  std::string out(32, '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), 32);
  BN_free(bn);
  return base64url(out);
}

}  // namespace

DpopKey DpopKey::generate() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (!key) throw std::runtime_error("EVP_EC_gen failed");
  DpopKey k;
  k.key_ = PrivateKey(key, EVP_PKEY_free);
  return k;
}

Result<DpopKey> DpopKey::from_pem(const std::string& pem) {
  auto key = read_private_key(pem);
  if (!key.ok()) return Error{"oauth", "the stored DPoP key is " + key.error().message};
  if (EVP_PKEY_base_id(key->get()) != EVP_PKEY_EC) return Error{"oauth", "the stored DPoP key is not a P-256 key"};
  DpopKey k;
  k.key_ = *key;
  return k;
}

std::string DpopKey::pem() const {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

json DpopKey::public_jwk() const {
  return {{"kty", "EC"},
          {"crv", "P-256"},
          {"x", coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X)},
          {"y", coordinate(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y)}};
}

std::string DpopKey::proof(const std::string& method, const std::string& url, const std::string& nonce,
                           const std::string& access_token, int64_t now) const {
  const json header = {{"typ", "dpop+jwt"}, {"alg", "ES256"}, {"jwk", public_jwk()}};
  json claims = {
      {"jti", random_token(16)}, {"htm", method}, {"htu", url.substr(0, url.find_first_of("?#"))}, {"iat", now}};
  if (!nonce.empty()) claims["nonce"] = nonce;
  if (!access_token.empty()) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(access_token.data()), access_token.size(), digest);
    claims["ath"] = base64url(std::string(reinterpret_cast<const char*>(digest), sizeof digest));
  }
  auto signed_jwt = jws_sign(key_.get(), "ES256", header, claims);
  return signed_jwt.ok() ? *signed_jwt : "";  // a P-256 key always signs ES256
}

}  // namespace kaisha::mcp
