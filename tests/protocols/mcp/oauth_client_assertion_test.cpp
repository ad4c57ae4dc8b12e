// private_key_jwt assertions: the claims RFC 7523 asks for, and a signature
// OpenSSL verifies with the public half of the key.
#include "protocols/mcp/oauth/oauth_client_assertion.hpp"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "runtime/core/json.hpp"

namespace kaisha::mcp {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Key generate(int type) {
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(type, nullptr),
                                                                  EVP_PKEY_CTX_free);
  EVP_PKEY* key = nullptr;
  EVP_PKEY_keygen_init(ctx.get());
  if (type == EVP_PKEY_EC)
    EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx.get(), NID_X9_62_prime256v1);
  else
    EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), 2048);
  EVP_PKEY_keygen(ctx.get(), &key);
  return Key(key, EVP_PKEY_free);
}

std::string pem_of(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string unbase64url(std::string s) {
  for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (s.size() % 4) s += '=';
  std::string out(s.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<size_t>(n) - (s.size() - s.find_last_not_of('=') - 1));
  return out;
}

struct Jwt {
  json header, claims;
  std::string signed_part, signature;
};

Jwt split(const std::string& jwt) {
  const size_t a = jwt.find('.'), b = jwt.rfind('.');
  Jwt j;
  j.header = json::parse(unbase64url(jwt.substr(0, a)));
  j.claims = json::parse(unbase64url(jwt.substr(a + 1, b - a - 1)));
  j.signed_part = jwt.substr(0, b);
  j.signature = unbase64url(jwt.substr(b + 1));
  return j;
}

bool verifies(EVP_PKEY* key, const std::string& data, std::string sig, bool ecdsa) {
  if (ecdsa) {  // JWS R||S -> DER, which OpenSSL verifies
    ECDSA_SIG* s = ECDSA_SIG_new();
    ECDSA_SIG_set0(s, BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()), 32, nullptr),
                   BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()) + 32, 32, nullptr));
    unsigned char* der = nullptr;
    const int n = i2d_ECDSA_SIG(s, &der);
    sig.assign(reinterpret_cast<char*>(der), static_cast<size_t>(n));
    OPENSSL_free(der);
    ECDSA_SIG_free(s);
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key);
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

TEST(OAuthClientAssertion, Es256CarriesTheClaimsAndVerifies) {
  Key key = generate(EVP_PKEY_EC);
  auto jwt = make_client_assertion(pem_of(key.get()), "ES256", "client-1", "https://as.example", 1000);
  ASSERT_TRUE(jwt.ok()) << jwt.error().message;
  const Jwt j = split(*jwt);
  EXPECT_EQ(j.header["alg"], "ES256");
  EXPECT_EQ(j.claims["iss"], "client-1");
  EXPECT_EQ(j.claims["sub"], "client-1");
  EXPECT_EQ(j.claims["aud"], "https://as.example");
  EXPECT_EQ(j.claims["iat"], 1000);
  EXPECT_EQ(j.claims["exp"], 1300);
  EXPECT_FALSE(j.claims["jti"].get<std::string>().empty());
  ASSERT_EQ(j.signature.size(), 64u);
  EXPECT_TRUE(verifies(key.get(), j.signed_part, j.signature, true));
  EXPECT_FALSE(verifies(key.get(), j.signed_part + "x", j.signature, true));
  EXPECT_NE(split(*make_client_assertion(pem_of(key.get()), "ES256", "client-1", "a", 1000)).claims["jti"],
            j.claims["jti"]);
}

TEST(OAuthClientAssertion, Rs256Verifies) {
  Key key = generate(EVP_PKEY_RSA);
  auto jwt = make_client_assertion(pem_of(key.get()), "RS256", "c", "https://as.example", 5);
  ASSERT_TRUE(jwt.ok()) << jwt.error().message;
  const Jwt j = split(*jwt);
  EXPECT_EQ(j.header["alg"], "RS256");
  EXPECT_TRUE(verifies(key.get(), j.signed_part, j.signature, false));
}

TEST(OAuthClientAssertion, BadKeysAndAlgorithmsAreErrorsWithoutKeyMaterial) {
  Key ec = generate(EVP_PKEY_EC);
  const std::string pem = pem_of(ec.get());
  auto wrong = make_client_assertion(pem, "RS256", "c", "a", 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message.find("PRIVATE KEY"), std::string::npos);
  EXPECT_FALSE(make_client_assertion(pem, "HS256", "c", "a", 1).ok());
  EXPECT_FALSE(make_client_assertion("not a key", "ES256", "c", "a", 1).ok());
}

}  // namespace
}  // namespace kaisha::mcp

#include "protocols/mcp/oauth/oauth_dpop.hpp"

namespace kaisha::mcp {
namespace {

TEST(OAuthDpop, ProofsAreFreshSignedAndBoundToTheToken) {
  const DpopKey key = DpopKey::generate();
  const std::string p1 = key.proof("POST", "https://h/mcp?x=1#f", "n1", "the-token", 77);
  const std::string p2 = key.proof("POST", "https://h/mcp", "", "", 77);
  const Jwt a = split(p1), b = split(p2);
  EXPECT_EQ(a.header["typ"], "dpop+jwt");
  EXPECT_EQ(a.header["alg"], "ES256");
  EXPECT_EQ(a.header["jwk"]["kty"], "EC");
  EXPECT_EQ(a.header["jwk"]["crv"], "P-256");
  EXPECT_FALSE(a.header["jwk"].contains("d"));  // never the private part
  EXPECT_EQ(a.claims["htm"], "POST");
  EXPECT_EQ(a.claims["htu"], "https://h/mcp");  // no query, no fragment
  EXPECT_EQ(a.claims["iat"], 77);
  EXPECT_EQ(a.claims["nonce"], "n1");
  // ath = base64url(SHA-256("the-token")), computed independently (Python hashlib).
  EXPECT_EQ(a.claims["ath"], "wqc_z2HfvcrceaELozCy7162b8Cmc17Wm3lrs8l7l64");
  EXPECT_FALSE(b.claims.contains("nonce"));
  EXPECT_FALSE(b.claims.contains("ath"));
  EXPECT_NE(a.claims["jti"], b.claims["jti"]);
  // The key survives the token file: the same public key, proofs still verify.
  auto again = DpopKey::from_pem(key.pem());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->public_jwk(), key.public_jwk());
  auto pkey = read_private_key(key.pem());
  ASSERT_TRUE(pkey.ok());
  EXPECT_TRUE(verifies(pkey->get(), a.signed_part, a.signature, true));
  EXPECT_FALSE(DpopKey::from_pem("junk").ok());
}

}  // namespace
}  // namespace kaisha::mcp
