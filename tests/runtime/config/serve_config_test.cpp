// The `serve:` section: HTTPS files, the proxy declaration and the limits,
// read as written, with file:line:key errors.
#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace {

TEST(ServeConfig, DefaultsWithoutTheSection) {
  auto c = parse_config("store: x.db\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->serve.tls_cert.empty());
  EXPECT_FALSE(c->serve.behind_tls_proxy);
  EXPECT_EQ(c->serve.max_connections, 2048);
  EXPECT_EQ(c->serve.max_connections_per_client, 256);
  EXPECT_EQ(c->serve.max_mcp_sessions_per_client, 32);
  EXPECT_FALSE(c->serve.shared_session);
  EXPECT_FALSE(c->serve.per_session_budget);
  EXPECT_EQ(c->serve.max_sessions, 64);
  EXPECT_EQ(c->serve.max_tasks, 256);
  EXPECT_EQ(c->serve.max_running_tasks, 16);
  EXPECT_TRUE(c->serve.grpc.empty());  // A2A over gRPC only when asked for
}

TEST(ServeConfig, ReadsTheSessionSettings) {
  auto c = parse_config(
      "serve:\n  sessions: shared\n  session_budget: per_session\n  max_sessions: 5\n"
      "  max_tasks: 9\n  max_running_tasks: 2\n",
      "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->serve.shared_session);
  EXPECT_TRUE(c->serve.per_session_budget);
  EXPECT_EQ(c->serve.max_sessions, 5);
  EXPECT_EQ(c->serve.max_tasks, 9);
  EXPECT_EQ(c->serve.max_running_tasks, 2);
  auto bad = parse_config("serve:\n  max_tasks: 1\n  sessions: per_user\n", "c.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("c.yaml:3"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("per_client or shared"), std::string::npos) << bad.error().message;
  auto zero = parse_config("serve:\n  max_running_tasks: 0\n", "c.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("max_running_tasks"), std::string::npos) << zero.error().message;
}

TEST(ServeConfig, ReadsTlsProxyAndLimits) {
  auto c = parse_config(R"(serve:
  tls_cert: /etc/kaisha/cert.pem
  tls_key: /etc/kaisha/key.pem
  behind_tls_proxy: true
  max_connections: 100
  max_connections_per_client: 10
  max_mcp_sessions_per_client: 3
  grpc: 127.0.0.1:50051
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->serve.tls_cert, "/etc/kaisha/cert.pem");
  EXPECT_EQ(c->serve.tls_key, "/etc/kaisha/key.pem");
  EXPECT_TRUE(c->serve.behind_tls_proxy);
  EXPECT_EQ(c->serve.max_connections, 100);
  EXPECT_EQ(c->serve.max_connections_per_client, 10);
  EXPECT_EQ(c->serve.max_mcp_sessions_per_client, 3);
  EXPECT_EQ(c->serve.grpc, "127.0.0.1:50051");
}

TEST(ServeConfig, ACertificateWithoutItsKeyIsAnError) {
  auto c = parse_config("serve:\n  tls_cert: cert.pem\n", "c.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("c.yaml:2"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("give both 'tls_cert' and 'tls_key'"), std::string::npos) << c.error().message;
  auto typo = parse_config("serve:\n  tls_crt: cert.pem\n", "c.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("tls_crt"), std::string::npos) << typo.error().message;
}

}  // namespace
}  // namespace kaisha::config
