// The token file: owner-only, keyed by server and by issuer, surviving a
// new store object (a new process).
#include "protocols/mcp/oauth/oauth_token_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kaisha::mcp {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "kaisha-oauth-test.XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

mode_t mode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_mode & 0777;
}

TEST(OAuthTokenStore, FileIsCreatedOwnerOnlyInAnOwnerOnlyDirectory) {
  TempDir d;
  const std::string file = d.path + "/state/kaisha/tokens.json";
  const mode_t old = ::umask(0);  // even a permissive umask must not widen it
  OAuthTokenStore s(file);
  ASSERT_TRUE(s.put_tokens("https://h/mcp", {"https://as", "at", "rt", "mcp", 42, "Bearer", ""}).ok());
  ::umask(old);
  EXPECT_EQ(mode_of(file), 0600u);
  EXPECT_EQ(mode_of(d.path + "/state/kaisha"), 0700u);
}

TEST(OAuthTokenStore, AWiderFileIsNarrowedOnTheNextWrite) {
  TempDir d;
  const std::string file = d.path + "/tokens.json";
  std::ofstream(file) << "{}";
  ::chmod(file.c_str(), 0644);
  OAuthTokenStore s(file);
  ASSERT_TRUE(s.put_registration("https://as", {"id", "secret", "client_secret_basic"}).ok());
  EXPECT_EQ(mode_of(file), 0600u);
}

TEST(OAuthTokenStore, TokensAndRegistrationsSurviveANewStore) {
  TempDir d;
  const std::string file = d.path + "/tokens.json";
  {
    OAuthTokenStore s(file);
    ASSERT_TRUE(s.put_tokens("https://h/mcp", {"https://as", "at", "rt", "mcp:basic", 42, "Bearer", ""}).ok());
    ASSERT_TRUE(s.put_registration("https://as", {"id", "secret", "client_secret_post"}).ok());
  }
  OAuthTokenStore s(file);
  auto t = s.tokens("https://h/mcp");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->issuer, "https://as");
  EXPECT_EQ(t->access_token, "at");
  EXPECT_EQ(t->refresh_token, "rt");
  EXPECT_EQ(t->scope, "mcp:basic");
  EXPECT_EQ(t->expires_at, 42);
  EXPECT_FALSE(s.tokens("https://other/mcp"));
  auto r = s.registration("https://as");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->client_id, "id");
  EXPECT_EQ(r->client_secret, "secret");
  EXPECT_EQ(r->auth_method, "client_secret_post");
  EXPECT_FALSE(s.registration("https://other-as"));
  ASSERT_TRUE(s.forget_tokens("https://h/mcp").ok());
  EXPECT_FALSE(s.tokens("https://h/mcp"));
  EXPECT_TRUE(s.registration("https://as"));
}

TEST(OAuthTokenStore, ACorruptFileReadsAsEmptyAndIsReplaced) {
  TempDir d;
  const std::string file = d.path + "/tokens.json";
  std::ofstream(file) << "not json {";
  OAuthTokenStore s(file);
  EXPECT_FALSE(s.tokens("https://h/mcp"));
  ASSERT_TRUE(s.put_tokens("https://h/mcp", {"https://as", "at", "", "", 0, "Bearer", ""}).ok());
  EXPECT_TRUE(s.tokens("https://h/mcp"));
}

TEST(OAuthTokenStore, EmptyPathKeepsEverythingInMemory) {
  OAuthTokenStore s("");
  ASSERT_TRUE(s.put_tokens("u", {"i", "at", "", "", 0, "Bearer", ""}).ok());
  EXPECT_EQ(s.tokens("u")->access_token, "at");
}

TEST(OAuthTokenStore, DefaultPathFollowsXdgStateHome) {
  const char* old = std::getenv("XDG_STATE_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_STATE_HOME", "/x/state", 1);
  EXPECT_EQ(OAuthTokenStore::default_path(), "/x/state/kaisha/mcp-oauth-tokens.json");
  if (old)
    ::setenv("XDG_STATE_HOME", saved.c_str(), 1);
  else
    ::unsetenv("XDG_STATE_HOME");
}

}  // namespace
}  // namespace kaisha::mcp
