// WWW-Authenticate Bearer challenges as MCP servers send them.
#include "protocols/mcp/oauth/oauth_challenge.hpp"

#include <gtest/gtest.h>

namespace kaisha::mcp {
namespace {

TEST(OAuthChallenge, ReadsTheBearerParameters) {
  const auto c = parse_www_authenticate(
      R"(Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="needs \"write\"")");
  EXPECT_TRUE(c.bearer);
  EXPECT_EQ(c.error, "insufficient_scope");
  EXPECT_EQ(c.scope, "mcp:basic mcp:write");
  EXPECT_EQ(c.resource_metadata, "https://h/.well-known/oauth-protected-resource/mcp");
  EXPECT_EQ(c.error_description, "needs \"write\"");
}

TEST(OAuthChallenge, SchemeAndNamesAreCaseInsensitiveAndTokensNeedNoQuotes) {
  const auto c = parse_www_authenticate("bearer Error=invalid_token, SCOPE=read");
  EXPECT_TRUE(c.bearer);
  EXPECT_EQ(c.error, "invalid_token");
  EXPECT_EQ(c.scope, "read");
}

TEST(OAuthChallenge, OnlyTheBearerChallengeCounts) {
  const auto c =
      parse_www_authenticate(R"(Basic realm="x", scope="basic-scope", Bearer scope="mcp", DPoP algs="ES256")");
  EXPECT_TRUE(c.bearer);
  EXPECT_EQ(c.scope, "mcp");
  EXPECT_FALSE(parse_www_authenticate(R"(Basic realm="x")").bearer);
}

TEST(OAuthChallenge, MalformedTextYieldsWhatWasReadAndNeverThrows) {
  EXPECT_FALSE(parse_www_authenticate("").bearer);
  const auto c = parse_www_authenticate(R"(Bearer scope="unterminated)");
  EXPECT_TRUE(c.bearer);
  EXPECT_EQ(c.scope, "unterminated");
  const auto d = parse_www_authenticate("Bearer ,,, = @@ scope=\"a\" ===");
  EXPECT_EQ(d.scope, "a");
  EXPECT_TRUE(parse_www_authenticate("Bearer abc.def==").bearer);  // a token68 after the scheme
}

}  // namespace
}  // namespace kaisha::mcp
