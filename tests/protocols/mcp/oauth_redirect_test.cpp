// PKCE values and the checks on an authorization response.
#include "protocols/mcp/oauth/oauth_redirect.hpp"

#include <gtest/gtest.h>

#include "protocols/mcp/oauth/oauth_pkce.hpp"

namespace kaisha::mcp {
namespace {

// Expected values computed independently (Python: urlsafe_b64encode(sha256(v)) without '=').
TEST(OAuthPkce, S256IsUnpaddedBase64UrlOfSha256) {
  EXPECT_EQ(s256_challenge("dBjftJeZ4CVP-mJ92IiC7szu8bI9ty6AKzO5Ob8X8Ns"),
            "8cJn_3UCBWRCsVdZdXrmX_6Cjxhhby9L2rbk5tLgipk");
  EXPECT_EQ(s256_challenge("dBjftJeZ4CVP-mJ92IiC7szu8bI9ty6AKzO5Ob8X8Xk"),
            "rAnmhMH_T3OhcNOdOyFt1QJ-Qh4umqYaPtPPmNzpRaE");
}

TEST(OAuthPkce, VerifiersAreFreshAndUseOnlyUnreservedCharacters) {
  const Pkce a = make_pkce(), b = make_pkce();
  EXPECT_NE(a.verifier, b.verifier);
  EXPECT_GE(a.verifier.size(), 43u);
  EXPECT_LE(a.verifier.size(), 128u);
  EXPECT_EQ(a.verifier.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"),
            std::string::npos);
  EXPECT_EQ(a.challenge, s256_challenge(a.verifier));
}

TEST(OAuthPkce, Base64ForBasicCredentials) {
  EXPECT_EQ(base64("client:secret"), "Y2xpZW50OnNlY3JldA==");
  EXPECT_EQ(base64("ab"), "YWI=");
  EXPECT_EQ(base64(""), "");
}

TEST(OAuthRedirect, ParsesQueries) {
  const auto q = parse_query("code=a%2Fb&state=x+y&empty=&flag");
  EXPECT_EQ(q.at("code"), "a/b");
  EXPECT_EQ(q.at("state"), "x y");
  EXPECT_EQ(q.at("empty"), "");
  EXPECT_EQ(q.at("flag"), "");
  EXPECT_EQ(query_of("http://h/cb?code=1#frag"), "code=1");
  EXPECT_TRUE(is_redirect_to("http://127.0.0.1:9/cb?code=1", "http://127.0.0.1:9/cb"));
  EXPECT_FALSE(is_redirect_to("http://127.0.0.1:9/login?next=cb", "http://127.0.0.1:9/cb"));
}

AuthorizationResponseCheck check(bool advertised = true) { return {"s1", "http://as.example", advertised}; }

TEST(OAuthRedirect, TakesTheCodeWhenStateAndIssuerAgree) {
  auto c = authorization_code("http://cb/?code=abc&state=s1&iss=http%3A%2F%2Fas.example", check());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(*c, "abc");
  EXPECT_TRUE(authorization_code("http://cb/?code=abc&state=s1", check(false)).ok());
}

TEST(OAuthRedirect, RefusesWrongStateIssuerOrAMissingPromisedIssuer) {
  EXPECT_FALSE(authorization_code("http://cb/?code=abc&state=other", check(false)).ok());
  EXPECT_FALSE(authorization_code("http://cb/?code=abc&state=s1&iss=https://evil.example.com", check()).ok());
  EXPECT_FALSE(authorization_code("http://cb/?code=abc&state=s1&iss=https://evil.example.com", check(false)).ok());
  // Simple string comparison: a normalization-equivalent issuer is not the issuer.
  EXPECT_FALSE(authorization_code("http://cb/?code=abc&state=s1&iss=http://as.example/", check()).ok());
  EXPECT_FALSE(authorization_code("http://cb/?code=abc&state=s1", check(true)).ok());
  auto e = authorization_code("http://cb/?error=access_denied&state=s1", check());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("access_denied"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::mcp
