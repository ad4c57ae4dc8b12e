// McpToolSource against the real child-process test server: prefixed tools
// with their schemas, list_changed, and a server that dies and is restarted
// with backoff while its calls fail at once with a clear message.
#include "protocols/mcp/client/mcp_tool_source.hpp"

#include "mcp_client_test_util.hpp"

namespace kaisha::mcp {
namespace {

using namespace testing;

config::McpServerConfig server_config(std::vector<std::string> args = {}) {
  config::McpServerConfig c;
  c.name = "t";
  c.command = test_server_path();
  c.args = std::move(args);
  c.tool_prefix = "t__";
  c.restart_base_ms = 50;
  c.restart_max_ms = 400;
  c.timeout_ms = 10'000;
  return c;
}

company::ToolResult call(McpToolSource& p, const std::string& name, const json& args = json::object()) {
  auto pr = std::make_shared<std::promise<company::ToolResult>>();
  auto f = pr->get_future();
  p.call(name, args, company::ToolCallContext{}, [pr](company::ToolResult r) { pr->set_value(std::move(r)); });
  return get(f);
}

bool offers(const McpToolSource& p, const std::string& name) {
  for (const auto& s : p.specs())
    if (s.name == name) return true;
  return false;
}

TEST(McpToolSource, OffersPrefixedToolsWithTheirSchemas) {
  http::HttpClient h;
  auto p = McpToolSource::create(server_config(), h);
  p->start();
  ASSERT_TRUE(p->wait_ready(std::chrono::seconds(30)).ok());
  EXPECT_EQ(p->origin(), "mcp:t");
  auto specs = p->specs();
  ASSERT_EQ(specs.size(), 12u);
  EXPECT_EQ(specs[0].name, "t__echo");
  EXPECT_EQ(specs[0].description, "test tool echo");
  EXPECT_EQ(specs[0].parameters["properties"]["text"]["type"], "string");
  auto r = call(*p, "t__echo", {{"text", "x"}});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.message, "echo: x");
}

// A call in flight when its process died runs again on a resume only when
// the server says the tool is read-only or idempotent.
TEST(McpToolSource, ATaggedToolIsSafeToRepeatAndAnyOtherIsNot) {
  http::HttpClient h;
  auto p = McpToolSource::create(server_config(), h);
  p->start();
  ASSERT_TRUE(p->wait_ready(std::chrono::seconds(30)).ok());
  EXPECT_TRUE(p->repeatable("t__echo"));     // readOnlyHint
  EXPECT_TRUE(p->repeatable("t__put"));      // idempotentHint
  EXPECT_FALSE(p->repeatable("t__append"));  // both false
  EXPECT_FALSE(p->repeatable("t__fail"));    // no annotations
  EXPECT_FALSE(p->repeatable("t__nope"));
}

TEST(McpToolSource, ListChangedUpdatesTheSpecs) {
  http::HttpClient h;
  auto p = McpToolSource::create(server_config(), h);
  p->start();
  ASSERT_TRUE(p->wait_ready(std::chrono::seconds(30)).ok());
  EXPECT_FALSE(offers(*p, "t__extra"));
  EXPECT_TRUE(call(*p, "t__grow").ok);
  EXPECT_TRUE(eventually([&] { return offers(*p, "t__extra"); }));
}

TEST(McpToolSource, ADeadServerFailsCallsAtOnceIsRestartedAndItsToolsWorkAgain) {
  http::HttpClient h;
  auto cfg = server_config();
  cfg.restart_base_ms = 2000;  // long enough to see the "not running" answer
  cfg.restart_max_ms = 2000;
  auto p = McpToolSource::create(cfg, h);
  p->start();
  ASSERT_TRUE(p->wait_ready(std::chrono::seconds(30)).ok());
  const int first_pid = p->child_pid();
  ASSERT_GT(first_pid, 0);

  auto died = call(*p, "t__die");
  EXPECT_FALSE(died.ok);
  EXPECT_NE(died.message.find("exited with status 3"), std::string::npos) << died.message;

  ASSERT_TRUE(eventually([&] { return !p->running(); }));
  auto meanwhile = call(*p, "t__echo", {{"text", "x"}});
  EXPECT_FALSE(meanwhile.ok);
  EXPECT_NE(meanwhile.message.find("MCP server 't' is not running; restarting (attempt 1"), std::string::npos)
      << meanwhile.message;
  EXPECT_TRUE(offers(*p, "t__echo"));  // still listed: the model gets the clear answer above

  ASSERT_TRUE(eventually([&] { return p->running(); }));
  EXPECT_EQ(p->restarts(), 1);
  EXPECT_NE(p->child_pid(), first_pid);
  auto again = call(*p, "t__echo", {{"text", "back"}});
  EXPECT_TRUE(again.ok) << again.message;
  EXPECT_EQ(again.message, "echo: back");
}

TEST(McpToolSource, AServerThatNeverStartsKeepsFailingClearly) {
  http::HttpClient h;
  auto p = McpToolSource::create(server_config({"--exit-at-start"}), h);
  p->start();
  Status s = p->wait_ready(std::chrono::seconds(30));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("refusing to start"), std::string::npos) << s.error().message;
  auto r = call(*p, "t__echo");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("is not running; restarting"), std::string::npos) << r.message;
  EXPECT_TRUE(p->specs().empty());
  p->stop();  // stops the restart loop promptly
}

}  // namespace
}  // namespace kaisha::mcp
