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
  expect_error("mcp_servers:\n  - name: a\n    url: ftp://h/mcp\n", "c.yaml:3: mcp_servers[0].url: expected an http://");
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
