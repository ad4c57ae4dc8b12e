#include "protocols/http/bind_policy.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "protocols/http/origin_check.hpp"

namespace kaisha::protocols {
namespace {

TEST(BindPolicy, LoopbackHostsAreRecognised) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("::"));
  EXPECT_FALSE(is_loopback_host("192.168.1.5"));
  EXPECT_FALSE(is_loopback_host("evil.example"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host(""));
}

TEST(BindPolicy, NonLoopbackNeedsAToken) {
  EXPECT_TRUE(check_bind_policy("127.0.0.1", "", false).ok());
  EXPECT_TRUE(check_bind_policy("0.0.0.0", "s3cret", true).ok());
  auto st = check_bind_policy("0.0.0.0", "", true);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "bind");
  EXPECT_NE(st.error().message.find("0.0.0.0"), std::string::npos);
  EXPECT_NE(st.error().message.find("KAISHA_HTTP_TOKEN"), std::string::npos);
  EXPECT_FALSE(check_bind_policy("", "tok", true).ok());
}

// Off loopback the token must not cross the network in clear text: HTTPS,
// or a TLS-terminating proxy the configuration vouches for.
TEST(BindPolicy, ATokenOffLoopbackNeedsTls) {
  auto st = check_bind_policy("0.0.0.0", "s3cret", false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "bind");
  EXPECT_NE(st.error().message.find("plain HTTP"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("behind_tls_proxy"), std::string::npos) << st.error().message;
  EXPECT_TRUE(check_bind_policy("127.0.0.1", "s3cret", false).ok());
  EXPECT_TRUE(check_bind_policy("::1", "s3cret", false).ok());
}

TEST(BindPolicy, TokenComesFromConfigThenEnvironment) {
  ::setenv(kTokenEnvVar, "from-env", 1);
  EXPECT_EQ(resolve_bearer_token("from-config"), "from-config");
  EXPECT_EQ(resolve_bearer_token(""), "from-env");
  ::unsetenv(kTokenEnvVar);
  EXPECT_EQ(resolve_bearer_token(""), "");
}

TEST(BindPolicy, ParsesHostPort) {
  auto a = parse_host_port("127.0.0.1:8080");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8080);
  auto b = parse_host_port(":9000");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "127.0.0.1");
  EXPECT_EQ(b->port, 9000);
  auto c = parse_host_port("[::1]:7");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->port, 7);
  auto d = parse_host_port("4000");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 4000);
  EXPECT_FALSE(parse_host_port("host:").ok());
  EXPECT_FALSE(parse_host_port("host:99999").ok());
  EXPECT_FALSE(parse_host_port("host:12a").ok());
  EXPECT_FALSE(parse_host_port("[::1]").ok());
  EXPECT_NE(parse_host_port("host:12a").error().message.find("12a"), std::string::npos);
}

TEST(BindPolicy, BearerMatchesExactly) {
  EXPECT_TRUE(bearer_matches("Bearer abc", "abc"));
  EXPECT_TRUE(bearer_matches("bearer abc", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abd", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abcd", "abc"));
  EXPECT_FALSE(bearer_matches("Basic abc", "abc"));
  EXPECT_FALSE(bearer_matches("", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer ", ""));
}

TEST(OriginCheck, HostOfStripsSchemePortAndPath) {
  EXPECT_EQ(host_of("localhost:8080"), "localhost");
  EXPECT_EQ(host_of("http://127.0.0.1:3000/x"), "127.0.0.1");
  EXPECT_EQ(host_of("http://[::1]:3000"), "[::1]");
  EXPECT_EQ(host_of("https://Evil.Example"), "evil.example");
}

TEST(OriginCheck, LoopbackServerRefusesForeignHostAndOrigin) {
  EXPECT_TRUE(check_origin_and_host("127.0.0.1:5000", "", true, {}).ok());
  EXPECT_TRUE(check_origin_and_host("localhost:5000", "http://localhost:3000", true, {}).ok());
  EXPECT_TRUE(check_origin_and_host("", "", true, {}).ok());
  auto host = check_origin_and_host("evil.example:5000", "", true, {});
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().code, "forbidden");
  EXPECT_NE(host.error().message.find("evil.example"), std::string::npos);
  auto origin = check_origin_and_host("127.0.0.1:5000", "http://evil.example", true, {});
  ASSERT_FALSE(origin.ok());
  EXPECT_NE(origin.error().message.find("Origin"), std::string::npos);
  EXPECT_TRUE(check_origin_and_host("127.0.0.1:5000", "https://app.example", true, {"https://app.example"}).ok());
  // A server bound to all interfaces accepts any Host but still checks Origin.
  EXPECT_TRUE(check_origin_and_host("myhost.lan:5000", "", false, {}).ok());
  EXPECT_FALSE(check_origin_and_host("myhost.lan:5000", "http://evil.example", false, {}).ok());
}

}  // namespace
}  // namespace kaisha::protocols
