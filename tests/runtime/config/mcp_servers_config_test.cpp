// The `mcp_servers:` section: stdio and HTTP servers, defaults, and a
// file:line:key error for every bad field.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace {

TEST(McpServersConfig, ReadsStdioAndHttpServers) {
  ::setenv("KAISHA_TEST_MCP_TOKEN", "sekrit", 1);
  auto c = parse_config(R"(
mcp_servers:
  - name: everything
    command: node
    args: [server.js, stdio]
    env: { LOG_LEVEL: debug }
    stderr_log: /tmp/everything.log
  - name: remote
    url: http://127.0.0.1:3001/mcp
    headers: { X-Team: a }
    bearer_token_env: KAISHA_TEST_MCP_TOKEN
    tool_prefix: ""
    timeout_ms: 5000
    connect_timeout_ms: 7000
    restart_base_ms: 100
    restart_max_ms: 1000
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->mcp_servers.size(), 2u);
  const McpServerConfig& s = c->mcp_servers[0];
  EXPECT_TRUE(s.stdio());
  EXPECT_EQ(s.command, "node");
  EXPECT_EQ(s.args, (std::vector<std::string>{"server.js", "stdio"}));
  EXPECT_EQ(s.env.at("LOG_LEVEL"), "debug");
  EXPECT_EQ(s.tool_prefix, "everything__");
  EXPECT_EQ(s.timeout_ms, 60000);
  EXPECT_EQ(s.where, "c.yaml:3");
  const McpServerConfig& h = c->mcp_servers[1];
  EXPECT_FALSE(h.stdio());
  EXPECT_EQ(h.url, "http://127.0.0.1:3001/mcp");
  EXPECT_EQ(h.headers.at("X-Team"), "a");
  EXPECT_EQ(h.bearer_token, "sekrit");
  EXPECT_EQ(h.tool_prefix, "");
  EXPECT_EQ(h.timeout_ms, 5000);
  EXPECT_EQ(h.connect_timeout_ms, 7000);
  EXPECT_EQ(h.restart_base_ms, 100);
  EXPECT_EQ(h.restart_max_ms, 1000);
}

TEST(McpServersConfig, NoneByDefault) {
  auto c = parse_config("store: x.db\n", "c.yaml");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->mcp_servers.empty());
}

void expect_error(const std::string& yaml, const std::string& needle) {
  auto c = parse_config(yaml, "c.yaml");
  ASSERT_FALSE(c.ok()) << yaml;
  EXPECT_NE(c.error().message.find(needle), std::string::npos) << c.error().message;
}

TEST(McpServersConfig, EveryBadFieldNamesFileLineAndKey) {
  expect_error("mcp_servers: {name: x}\n", "c.yaml:1: mcp_servers: expected a list");
  expect_error("mcp_servers:\n  - command: node\n", "c.yaml:2: mcp_servers[0]: 'name' is required");
  expect_error("mcp_servers:\n  - name: a b\n    command: x\n", "mcp_servers[0].name: 'a b' is not a server name");
  expect_error("mcp_servers:\n  - name: a\n", "give exactly one of 'command'");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    url: http://h/mcp\n", "give exactly one of 'command'");
  expect_error("mcp_servers:\n  - name: a\n    url: ftp://h/mcp\n",
               "c.yaml:3: mcp_servers[0].url: expected an http://");
  expect_error("mcp_servers:\n  - name: a\n    url: http://h/mcp\n    args: [x]\n",
               "c.yaml:4: mcp_servers[0].args: 'args' applies only with 'command'");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    headers: {A: b}\n",
               "mcp_servers[0].headers: 'headers' applies only with 'url'");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    args: x\n", "mcp_servers[0].args: expected a list");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    env: [A]\n", "mcp_servers[0].env: expected a map");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    timeout_ms: 0\n",
               "c.yaml:4: mcp_servers[0].timeout_ms: expected an integer >= 1");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    restart_base_ms: 500\n    restart_max_ms: 100\n",
               "restart_max_ms (100) is below restart_base_ms (500)");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    comand: y\n", "did you mean 'command'");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n",
               "c.yaml:4: mcp_servers[1].name: a second server named 'a'");
  ::unsetenv("KAISHA_TEST_MCP_UNSET");
  expect_error("mcp_servers:\n  - name: a\n    url: http://h/mcp\n    bearer_token_env: KAISHA_TEST_MCP_UNSET\n",
               "c.yaml:4: mcp_servers[0].bearer_token_env: the environment variable KAISHA_TEST_MCP_UNSET is not set");
}

}  // namespace
}  // namespace kaisha::config

namespace kaisha::config {
namespace {

TEST(McpServersConfig, ReadsOAuthSettings) {
  ::setenv("KAISHA_TEST_MCP_SECRET", "s3cret", 1);
  auto c = parse_config(R"(
mcp_servers:
  - name: tracker
    url: https://mcp.example.com/mcp
    auth:
      client_id: kaisha-prod
      client_secret_env: KAISHA_TEST_MCP_SECRET
      grant: client_credentials
      scopes: [mcp:read, mcp:write]
      token_file: /tmp/t.json
  - name: workload
    url: https://mcp.example.com/mcp
    auth: { grant: jwt_bearer, client_id: w, assertion_file: /var/run/token }
  - name: enterprise
    url: https://mcp.example.com/mcp
    auth: { grant: identity_assertion, client_id: c, assertion_file: /t, idp_token_endpoint: "https://idp/token", idp_client_id: i }
  - name: open
    url: https://mcp.example.com/mcp
    auth:
      scopes: mcp:read
      redirect_uri: http://127.0.0.1:9/cb
      client_metadata_url: https://kaisha.example/client.json
  - name: plain
    url: https://mcp.example.com/mcp
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const McpAuthConfig& a = c->mcp_servers[0].auth;
  EXPECT_EQ(a.grant, "client_credentials");
  EXPECT_EQ(a.client_id, "kaisha-prod");
  EXPECT_EQ(a.client_secret, "s3cret");
  EXPECT_EQ(a.scopes, "mcp:read mcp:write");
  EXPECT_EQ(a.token_file, "/tmp/t.json");
  EXPECT_EQ(c->mcp_servers[1].auth.grant, "jwt_bearer");
  EXPECT_EQ(c->mcp_servers[1].auth.assertion_file, "/var/run/token");
  EXPECT_EQ(c->mcp_servers[2].auth.grant, "identity_assertion");
  EXPECT_EQ(c->mcp_servers[2].auth.idp_token_endpoint, "https://idp/token");
  EXPECT_EQ(c->mcp_servers[2].auth.idp_client_id, "i");
  const McpAuthConfig& b = c->mcp_servers[3].auth;
  EXPECT_EQ(b.grant, "authorization_code");
  EXPECT_EQ(b.scopes, "mcp:read");
  EXPECT_EQ(b.redirect_uri, "http://127.0.0.1:9/cb");
  EXPECT_EQ(b.client_metadata_url, "https://kaisha.example/client.json");
  EXPECT_TRUE(c->mcp_servers[4].auth.client_id.empty());  // no auth entry: discovered when demanded
}

TEST(McpServersConfig, BadOAuthSettingsNameFileLineAndKey) {
  const std::string head = "mcp_servers:\n  - name: a\n    url: https://h/mcp\n    auth:\n";
  expect_error(head + "      grant: implicit\n",
               "c.yaml:5: mcp_servers[0].auth.grant: expected authorization_code, client_credentials, jwt_bearer or "
               "identity_assertion");
  expect_error(head + "      grant: identity_assertion\n      client_id: c\n      assertion_file: /t\n",
               "grant: identity_assertion needs 'idp_token_endpoint'");
  expect_error(head + "      idp_token_endpoint: https://idp/token\n",
               "'idp_token_endpoint' applies only with grant: identity_assertion");
  expect_error(head + "      grant: jwt_bearer\n", "mcp_servers[0].auth: grant: jwt_bearer needs 'assertion_file'");
  expect_error(head + "      assertion_file: /x\n",
               "'assertion_file' applies only with grant: jwt_bearer or identity_assertion");
  expect_error(head + "      client_id: x\n      private_key_file: /nonexistent/key.pem\n",
               "c.yaml:6: mcp_servers[0].auth.private_key_file: '/nonexistent/key.pem' cannot be read");
  expect_error(head + "      signing_algorithm: HS256\n",
               "mcp_servers[0].auth.signing_algorithm: expected ES256 or RS256");
  expect_error(head + "      grant: client_credentials\n",
               "mcp_servers[0].auth: grant: client_credentials needs 'client_id'");
  expect_error(
      head + "      client_id: x\n      client_secret_env: KAISHA_TEST_UNSET_VAR\n",
      "c.yaml:6: mcp_servers[0].auth.client_secret_env: the environment variable KAISHA_TEST_UNSET_VAR is not set");
  expect_error(head + "      client_metadata_url: http://h/c.json\n",
               "mcp_servers[0].auth.client_metadata_url: a client ID metadata document must be an https:// URL");
  expect_error(head + "      redirect_uri: myapp:/cb\n", "mcp_servers[0].auth.redirect_uri: expected an http://");
  expect_error(head + "      client_secret: x\n", "mcp_servers[0].auth: a client secret needs 'client_id'");
  expect_error(head + "      tenant: x\n", "tenant");
  expect_error("mcp_servers:\n  - name: a\n    command: x\n    auth: {client_id: y}\n",
               "mcp_servers[0].auth: 'auth' applies only with 'url'");
  ::setenv("KAISHA_TEST_MCP_TOKEN", "sekrit", 1);
  expect_error(
      "mcp_servers:\n  - name: a\n    url: https://h/mcp\n    bearer_token_env: KAISHA_TEST_MCP_TOKEN\n    auth: {}\n",
      "give 'bearer_token_env' (a static token) or 'auth' (OAuth), not both");
}

}  // namespace
}  // namespace kaisha::config
