// McpClient negotiating MCP 2026-07-28 with kaisha's own server (the
// conformance fixture, dual-era) over Streamable HTTP and stdio, and
// answering a modern server's questions (InputRequiredResult).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mcp_client_test_util.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"

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

// A legacy stdio server that ignores server/discover (it answers nothing
// before initialize) is taken for legacy after the stdio transport's short
// wait, not the 10 s an HTTP server gets. The bound is generous: it only
// tells the short wait from the long one.
TEST(McpClientModern, AStdioServerSilentOnDiscoverGetsTheHandshakeSoon) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server({"--silent-before-initialize"}), timers);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(connect(*c).ok());
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(c->modern());
  EXPECT_EQ(c->protocol_version(), kLatestVersion);
  EXPECT_LT(waited, std::chrono::seconds(8));
  std::printf("connect to a stdio server silent on server/discover took %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()));
  c->close();
}

// A server that speaks only 2026-07-28 but starts too slowly to answer the
// short probe refuses the initialize that follows: it is probed again and
// spoken to in its revision.
TEST(McpClientModern, AModernOnlyStdioServerSlowToStartIsProbedAgain) {
  http::HttpClient timers;
  McpClientOptions o;
  o.discover_timeout_ms = 200;  // shorter than its start
  auto c = McpClient::create(test_server({"--modern", "--sleep-at-start", "1000"}), timers, o);
  Status s = connect(*c);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(c->modern());
  EXPECT_EQ(c->protocol_version(), kModernVersion);
  c->close();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Cancelling a request by the id call_tool returned (its first round's)
// reaches the round in flight: the server is told that round's id.
TEST(McpClientModern, CancelReachesTheRoundInFlight) {
  const std::string log =
      (std::filesystem::temp_directory_path() / ("mcp-rounds-" + std::to_string(getpid()))).string();
  std::filesystem::remove(log);
  http::HttpClient timers;
  McpClientOptions o;
  o.capabilities = {{"elicitation", json::object()}};
  auto c = McpClient::create(test_server({"--modern"}, log), timers, o);
  std::promise<void> asked;
  c->on_request([&](const std::string&, const json&, std::function<void(Result<json>)> reply) {
    reply(json{{"action", "accept"}, {"content", {{"name", "Alice"}}}});
    asked.set_value();
  });
  ASSERT_TRUE(connect(*c).ok());
  ASSERT_TRUE(c->modern());
  auto done = std::make_shared<std::promise<Result<json>>>();
  auto result = done->get_future();
  const int64_t first =
      c->call_tool("ask_then_silent", json::object(), [done](Result<json> r) { done->set_value(std::move(r)); });
  auto a = asked.get_future();
  ASSERT_EQ(a.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  // The second round is sent once the answer is in; the server never answers it.
  const int64_t second = first + 1;
  EXPECT_TRUE(eventually([&] { return c->cancel(first, "no longer needed"); }));
  auto r = get(result);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cancelled: no longer needed"), std::string::npos) << r.error().message;
  EXPECT_TRUE(eventually([&] {
    return read_text(log).find("cancelled " + std::to_string(second)) != std::string::npos;
  })) << read_text(log);
  EXPECT_FALSE(c->cancel(first, "again"));
  c->close();
  std::filesystem::remove(log);
}

// A request cancelled while the client gathers its input for the next round
// ends at once, and that round is never sent.
TEST(McpClientModern, CancelBetweenRoundsEndsTheRequestAndSendsNoMoreRounds) {
  ModernServer s;
  http::HttpClient h;
  McpClientOptions o;
  o.capabilities = {{"elicitation", json::object()}};
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, o);
  std::mutex mu;
  std::function<void(Result<json>)> held;  // the first question's reply, given only after the cancel
  int questions = 0;
  c->on_request([&](const std::string&, const json&, std::function<void(Result<json>)> reply) {
    std::lock_guard lock(mu);
    if (++questions == 1) held = std::move(reply);
  });
  ASSERT_TRUE(connect(*c).ok());
  std::atomic<int> calls{0};
  auto done = std::make_shared<std::promise<Result<json>>>();
  auto result = done->get_future();
  const int64_t first =
      c->call_tool("test_input_required_result_multi_round", json::object(), [&calls, done](Result<json> r) {
        if (++calls == 1) done->set_value(std::move(r));
      });
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mu);
    return questions == 1;
  }));
  EXPECT_TRUE(c->cancel(first, "changed my mind"));
  auto r = get(result);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cancelled: changed my mind"), std::string::npos) << r.error().message;
  std::function<void(Result<json>)> reply;
  {
    std::lock_guard lock(mu);
    reply = held;
  }
  reply(json{{"action", "accept"}, {"content", {{"name", "Alice"}}}});
  // Had the next round gone, its answer (the second question) would reach
  // the handler, and the callback could run twice.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(calls.load(), 1);
  {
    // Not held across close(): the client's I/O thread calls the handler,
    // which takes `mu`, while it holds the transport's lock.
    std::lock_guard lock(mu);
    EXPECT_EQ(questions, 1);
  }
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
