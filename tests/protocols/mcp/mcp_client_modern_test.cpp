// McpClient negotiating MCP 2026-07-28 with kaisha's own server (the
// conformance fixture, dual-era) over Streamable HTTP and stdio, and
// answering a modern server's questions (InputRequiredResult).
#include <filesystem>

#include "mcp_client_test_util.hpp"
#include "protocols/mcp/conformance_fixture.hpp"
#include "protocols/mcp/mcp_http_client_transport.hpp"
#include "protocols/mcp/mcp_http_transport.hpp"
#include "protocols/mcp/mcp_protocol.hpp"

namespace kaisha::mcp {
namespace {

using namespace testing;

struct ModernServer {
  std::unique_ptr<ConformanceFixture> backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  McpHttpTransport transport{server, http};
  std::string url;
  ModernServer() {
    auto port = http.start();
    EXPECT_TRUE(port.ok());
    url = http.base_url() + "/mcp";
  }
  ~ModernServer() { http.stop(); }
};

TEST(McpClientModern, NegotiatesTheStatelessRevisionWithADualEraServer) {
  ModernServer s;
  http::HttpClient h;
  auto t = std::make_unique<McpHttpClientTransport>(h, s.url);
  auto* raw = t.get();
  auto c = McpClient::create(std::move(t), h);
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_EQ(c->protocol_version(), kModernVersion);
  EXPECT_TRUE(c->modern());
  EXPECT_TRUE(raw->session_id().empty());
  EXPECT_EQ(c->server_info()["name"], "kaisha-conformance-fixture");
  EXPECT_TRUE(c->server_capabilities()["tools"]["listChanged"].get<bool>());
  EXPECT_EQ(s.transport.session_count(), 0u);

  auto tools = list(*c);
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  auto r = call(*c, "test_simple_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "This is a simple text response for testing.");
  EXPECT_EQ((*r)["resultType"], "complete");
  // A tool that mirrors arguments into Mcp-Param-* headers: the server
  // refuses the call unless they match, so an answer proves they were sent,
  // encoded where needed.
  auto mirrored = call(*c, "test_custom_headers", {{"region", " eu west ü "}, {"priority", 3}});
  ASSERT_TRUE(mirrored.ok()) << mirrored.error().message;
  c->close();
}

TEST(McpClientModern, AnswersInputRequestsAndRetries) {
  ModernServer s;
  http::HttpClient h;
  McpClientOptions o;
  o.capabilities = {{"elicitation", json::object()}};
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, o);
  std::vector<std::string> asked;
  std::mutex mu;
  c->on_request([&](const std::string& method, const json& params, std::function<void(Result<json>)> reply) {
    {
      std::lock_guard lock(mu);
      asked.push_back(params.value("message", method));
    }
    const std::string m = params.value("message", "");
    json content = m.find("name") != std::string::npos ? json{{"name", "Alice"}} : json{{"color", "blue"}};
    reply(json{{"action", "accept"}, {"content", content}});
  });
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "test_input_required_result_multi_round");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "Multi-round complete for Alice who likes blue");
  std::lock_guard lock(mu);
  EXPECT_EQ(asked, (std::vector<std::string>{"Step 1: What is your name?", "Step 2: What is your favorite color?"}));
}

TEST(McpClientModern, AnUndeclaredCapabilityIsAClearError) {
  ModernServer s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h);  // declares nothing
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "test_input_required_result_elicitation");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("-32021"), std::string::npos) << r.error().message;
}

TEST(McpClientModern, ListChangesArriveOnTheListenStream) {
  ModernServer s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h);
  std::atomic<int> changes{0}, acks{0};
  c->on_notification([&](const std::string& method, const json& params) {
    if (method == "notifications/subscriptions/acknowledged") ++acks;
    if (method == "notifications/tools/list_changed" && params.contains("_meta")) ++changes;
  });
  ASSERT_TRUE(connect(*c).ok());
  ASSERT_TRUE(eventually([&] { return acks.load() == 1; }));
  ASSERT_TRUE(call(*c, "test_trigger_tool_change").ok());
  EXPECT_TRUE(eventually([&] { return changes.load() == 1; }));
  c->close();
}

TEST(McpClientModern, AServerThatKnowsOnlyLegacyGetsTheHandshake) {
  // kaisha's scripted legacy stdio server answers server/discover with
  // -32601: the client falls back to initialize.
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_FALSE(c->modern());
  EXPECT_EQ(c->protocol_version(), kLatestVersion);
  c->close();
}

TEST(McpClientModern, OverStdioToo) {
  ChildSpec spec{KAISHA_BINARY_DIR "/cli/kaisha", {"serve", "--mcp-stdio", "--fixture", "conformance"}, {}};
  if (!std::filesystem::exists(spec.command)) GTEST_SKIP() << "kaisha is not built";
  http::HttpClient timers;
  auto c = McpClient::create(std::make_unique<McpStdioClientTransport>(spec), timers);
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_EQ(c->protocol_version(), kModernVersion);
  auto r = call(*c, "test_simple_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "This is a simple text response for testing.");
  c->close();
}

}  // namespace
}  // namespace kaisha::mcp
