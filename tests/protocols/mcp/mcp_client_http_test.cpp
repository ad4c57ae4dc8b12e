// McpClient over Streamable HTTP against kaisha's own MCP server (the
// conformance fixture) on a real loopback HttpServer.
#include "mcp_client_test_util.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"

namespace kaisha::mcp {
namespace {

using namespace testing;

struct Server {
  std::unique_ptr<ConformanceFixture> backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  std::unique_ptr<McpHttpTransport> transport = std::make_unique<McpHttpTransport>(server, http);
  std::string url;
  Server() {
    auto port = http.start();
    EXPECT_TRUE(port.ok());
    url = http.base_url() + "/mcp";
  }
  ~Server() { http.stop(); }
};

McpClientOptions legacy_options() {
  McpClientOptions o;
  o.protocol_version = "2025-11-25";  // no probe: the legacy handshake at once
  return o;
}

TEST(McpClientHttp, InitializesWithASessionListsAndCalls) {
  Server s;
  http::HttpClient h;
  auto t = std::make_unique<McpHttpClientTransport>(h, s.url);
  auto* raw = t.get();
  auto c = McpClient::create(std::move(t), h, legacy_options());
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_EQ(c->protocol_version(), "2025-11-25");
  EXPECT_FALSE(raw->session_id().empty());
  auto tools = list(*c);
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  bool found = false;
  for (const auto& tool : *tools) found = found || tool.name == "test_simple_text";
  EXPECT_TRUE(found);
  auto r = call(*c, "test_simple_text");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "This is a simple text response for testing.");
  // A tool that sends progress and log lines on the SSE stream before answering.
  auto logged = call(*c, "test_tool_with_logging");
  ASSERT_TRUE(logged.ok()) << logged.error().message;
  EXPECT_TRUE(eventually([&] { return s.transport->session_count() == 1; }));
  c->close();
  // close() DELETEs the session.
  EXPECT_TRUE(eventually([&] { return s.transport->session_count() == 0; }));
}

TEST(McpClientHttp, AnUnreachableServerIsAClearError) {
  std::string url;
  {
    Server gone;
    url = gone.url;
  }
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, url), h);
  Status st = connect(*c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(url), std::string::npos) << st.error().message;
}

TEST(McpClientHttp, ALostSessionClosesTheClient) {
  Server s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, legacy_options());
  auto closed = std::make_shared<std::promise<Error>>();
  c->on_closed([closed](const Error& e) { closed->set_value(e); });
  ASSERT_TRUE(connect(*c).ok());
  // The server forgets every session (as after a restart): the next request gets 404.
  s.transport.reset();
  s.transport = std::make_unique<McpHttpTransport>(s.server, s.http);
  auto r = call(*c, "test_simple_text");
  ASSERT_FALSE(r.ok());
  auto f = closed->get_future();
  EXPECT_NE(get(f).message.find("no longer knows our session"), std::string::npos);
}

TEST(McpClientHttp, ABadUrlIsRefusedBeforeAnyRequest) {
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, "ftp://x/mcp"), h);
  Status st = connect(*c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("must start with http://"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::mcp
