// McpClient over stdio against a real child process (mcp_test_server): the
// handshake, paginated tools/list, calls, and every way the server can
// misbehave — malformed answers, silence, death mid-call, a wrong version.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mcp_client_test_util.hpp"
#include "protocols/mcp/client/mcp_tool_result.hpp"

namespace kaisha::mcp {
namespace {

using namespace testing;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(McpClientStdio, InitializesListsEveryPageAndCalls) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_EQ(c->protocol_version(), "2025-11-25");
  EXPECT_EQ(c->server_info().value("name", ""), "mcp_test_server");
  auto tools = list(*c);
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  ASSERT_EQ(tools->size(), 12u);  // echo on page 1, eleven on page 2
  EXPECT_EQ((*tools)[0].name, "echo");
  EXPECT_EQ((*tools)[0].input_schema["properties"]["text"]["type"], "string");
  EXPECT_EQ((*tools)[7].name, "structured");
  EXPECT_EQ((*tools)[0].annotations, (json{{"readOnlyHint", true}}));
  EXPECT_TRUE((*tools)[1].annotations.is_null());
  auto r = call(*c, "echo", {{"text", "hi"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "echo: hi");
  // A trace context goes in the request's _meta, and only when there is one.
  const std::string tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  auto traced = call(*c, "meta", json::object(), 0, tp);
  ASSERT_TRUE(traced.ok()) << traced.error().message;
  EXPECT_EQ((*traced)["content"][0]["text"], "meta: {\"traceparent\":\"" + tp + "\"}");
  auto untraced = call(*c, "meta");
  ASSERT_TRUE(untraced.ok()) << untraced.error().message;
  EXPECT_EQ((*untraced)["content"][0]["text"], "meta: {}");
}

TEST(McpClientStdio, ToolErrorsAndStructuredResultsReachTheEnvelope) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  ASSERT_TRUE(connect(*c).ok());
  auto failed = call(*c, "fail");
  ASSERT_TRUE(failed.ok());
  auto env = to_tool_result("t", "fail", *failed);
  EXPECT_FALSE(env.ok);
  EXPECT_NE(env.message.find("it went wrong"), std::string::npos);
  auto structured = call(*c, "structured");
  ASSERT_TRUE(structured.ok());
  env = to_tool_result("t", "structured", *structured);
  EXPECT_TRUE(env.ok);
  EXPECT_EQ(env.output, json({{"n", 7}}));
  auto unknown = call(*c, "nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "mcp");
  EXPECT_NE(unknown.error().message.find("Unknown tool: nope"), std::string::npos);
}

TEST(McpClientStdio, MalformedAnswerFailsTheCallAndTheClientGoesOn) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "garbage");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "mcp");
  EXPECT_NE(r.error().message.find("invalid JSON-RPC message"), std::string::npos) << r.error().message;
  EXPECT_FALSE(c->last_malformed().empty());
  auto ok = call(*c, "echo", {{"text", "still here"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["content"][0]["text"], "echo: still here");
}

TEST(McpClientStdio, SilentServerTimesOutAndTheRequestIsCancelled) {
  const std::string log =
      (std::filesystem::temp_directory_path() / ("mcp-silent-" + std::to_string(getpid()))).string();
  std::filesystem::remove(log);
  http::HttpClient timers;
  auto c = McpClient::create(test_server({}, log), timers);
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "silent", json::object(), 200);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "timeout");
  EXPECT_NE(r.error().message.find("did not answer tools/call in time"), std::string::npos) << r.error().message;
  // The server was told (its stderr goes to the log). Ids: 1 the
  // server/discover probe (this legacy server refuses it), 2 initialize.
  EXPECT_TRUE(eventually([&] { return read_file(log).find("cancelled 3") != std::string::npos; })) << read_file(log);
  c->close();
  std::filesystem::remove(log);
}

// One timer serves every pending request: a shorter timeout given after a
// longer one still fires on time, and the longer one stays pending.
TEST(McpClientStdio, AShorterTimeoutAfterALongerOneFiresFirst) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  ASSERT_TRUE(connect(*c).ok());
  std::promise<Result<json>> long_call;
  c->call_tool(
      "silent", json::object(), [&](Result<json> r) { long_call.set_value(std::move(r)); }, 600'000);
  auto short_call = call(*c, "silent", json::object(), 200);
  ASSERT_FALSE(short_call.ok());
  EXPECT_EQ(short_call.error().code, "timeout");
  auto pending = long_call.get_future();
  EXPECT_EQ(pending.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);  // ten minutes to go
  c->close();                                                                              // fails what is pending
  ASSERT_EQ(pending.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_FALSE(pending.get().ok());
}

TEST(McpClientStdio, ServerDyingMidCallFailsThePendingCallWithHowItEnded) {
  http::HttpClient timers;
  auto c = McpClient::create(test_server(), timers);
  auto closed = std::make_shared<std::promise<Error>>();
  c->on_closed([closed](const Error& e) { closed->set_value(e); });
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "die");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "mcp_closed");
  EXPECT_NE(r.error().message.find("exited with status 3"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("dying on purpose"), std::string::npos) << r.error().message;
  auto f = closed->get_future();
  EXPECT_NE(get(f).message.find("exited with status 3"), std::string::npos);
  // Later calls fail at once.
  auto after = call(*c, "echo");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, "mcp_closed");
}

TEST(McpClientStdio, CloseEndsAndReapsTheServer) {
  http::HttpClient timers;
  auto t = test_server();
  auto* raw = t.get();
  auto c = McpClient::create(std::move(t), timers);
  ASSERT_TRUE(connect(*c).ok());
  const int pid = raw->pid();
  ASSERT_GT(pid, 0);
  c->close();
  // kill(pid, 0) still succeeds on a zombie: ESRCH means it was reaped.
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(McpClientStdio, AcceptsAnOlderProtocolVersionAndRefusesAnUnknownOne) {
  http::HttpClient timers;
  auto old = McpClient::create(test_server({"--version", "2024-11-05"}), timers);
  ASSERT_TRUE(connect(*old).ok());
  EXPECT_EQ(old->protocol_version(), "2024-11-05");
  auto bad = McpClient::create(test_server({"--version", "1999-01-01"}), timers);
  Status s = connect(*bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("speaks MCP 1999-01-01"), std::string::npos) << s.error().message;
}

TEST(McpClientStdio, AProgramThatCannotStartIsAClearError) {
  http::HttpClient timers;
  auto c = McpClient::create(std::make_unique<McpStdioClientTransport>(ChildSpec{"/nonexistent/mcp-server", {}, {}}),
                             timers);
  Status s = connect(*c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot start '/nonexistent/mcp-server'"), std::string::npos) << s.error().message;

  auto quits = McpClient::create(test_server({"--exit-at-start"}), timers);
  s = connect(*quits);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("refusing to start"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace kaisha::mcp
