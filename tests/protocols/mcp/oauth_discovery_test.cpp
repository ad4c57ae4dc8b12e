// Where authorization metadata is looked for, in the MCP spec's order, and
// the checks made on it.
#include "protocols/mcp/oauth/oauth_discovery.hpp"

#include <gtest/gtest.h>

namespace kaisha::mcp {
namespace {

using Urls = std::vector<std::string>;

TEST(OAuthDiscovery, SplitsUrls) {
  EXPECT_EQ(split_url("https://h:1/a/b?q=1#f").origin, "https://h:1");
  EXPECT_EQ(split_url("https://h:1/a/b?q=1#f").path, "/a/b");
  EXPECT_EQ(split_url("http://h").path, "");
  EXPECT_EQ(split_url("http://h?x").origin, "http://h");
}

TEST(OAuthDiscovery, ProtectedResourceMetadataChallengeFirstThenPathThenRoot) {
  EXPECT_EQ(
      protected_resource_metadata_urls("https://h/mcp", ""),
      (Urls{"https://h/.well-known/oauth-protected-resource/mcp", "https://h/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(protected_resource_metadata_urls("https://h/mcp/", "https://h/custom.json"),
            (Urls{"https://h/custom.json", "https://h/.well-known/oauth-protected-resource/mcp",
                  "https://h/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(protected_resource_metadata_urls("https://h", ""),
            (Urls{"https://h/.well-known/oauth-protected-resource"}));
}

TEST(OAuthDiscovery, AuthorizationServerMetadataInTheSpecsOrder) {
  EXPECT_EQ(authorization_server_metadata_urls("https://as.example/tenant1"),
            (Urls{"https://as.example/.well-known/oauth-authorization-server/tenant1",
                  "https://as.example/.well-known/openid-configuration/tenant1",
                  "https://as.example/tenant1/.well-known/openid-configuration"}));
  EXPECT_EQ(authorization_server_metadata_urls("https://as.example/"),
            (Urls{"https://as.example/.well-known/oauth-authorization-server",
                  "https://as.example/.well-known/openid-configuration"}));
}

TEST(OAuthDiscovery, ResourceMustBeTheServerOrAParentOfIt) {
  EXPECT_TRUE(resource_matches("https://h/mcp", "https://h/mcp"));
  EXPECT_TRUE(resource_matches("https://h/mcp/", "https://h/mcp"));
  EXPECT_TRUE(resource_matches("https://h", "https://h/mcp"));
  EXPECT_TRUE(resource_matches("HTTPS://H/mcp", "https://h/mcp"));
  EXPECT_FALSE(resource_matches("https://evil.example.com/mcp", "https://h/mcp"));
  EXPECT_FALSE(resource_matches("https://h/mc", "https://h/mcp"));
  EXPECT_FALSE(resource_matches("https://h/mcp/other", "https://h/mcp"));
  EXPECT_FALSE(resource_matches("", "https://h/mcp"));
}

TEST(OAuthDiscovery, ScopeFromTheChallengeElseTheResourceElseNone) {
  EXPECT_EQ(select_scope("mcp:basic", {"a", "b"}, "", false, {}), "mcp:basic");
  EXPECT_EQ(select_scope("", {"a", "b"}, "", false, {}), "a b");
  EXPECT_EQ(select_scope("", {}, "", true, {"offline_access"}), "");
}

TEST(OAuthDiscovery, StepUpKeepsWhatWasAskedBeforeAndOfflineAccessOnlyWhenOffered) {
  EXPECT_EQ(select_scope("mcp:write", {}, "mcp:basic", false, {}), "mcp:basic mcp:write");
  EXPECT_EQ(select_scope("mcp:basic", {}, "mcp:basic", false, {}), "mcp:basic");
  EXPECT_EQ(select_scope("", {"mcp:basic"}, "", true, {"mcp:basic", "offline_access"}), "mcp:basic offline_access");
  EXPECT_EQ(select_scope("", {"mcp:basic"}, "", true, {"mcp:basic", "mcp:read"}), "mcp:basic");
  EXPECT_EQ(select_scope("", {"mcp:basic"}, "", false, {"offline_access"}), "mcp:basic");
}

}  // namespace
}  // namespace kaisha::mcp
