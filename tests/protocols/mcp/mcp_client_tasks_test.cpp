// McpClient and the tasks extension, against kaisha's own server (the
// conformance fixture) over Streamable HTTP: a tool call the server runs as
// a task is waited for, its questions answered, and a call cancelled or
// timed out cancels its task.
#include "mcp_client_test_util.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"

namespace kaisha::mcp {
namespace {

using namespace testing;

struct TaskServerOverHttp {
  std::unique_ptr<ConformanceFixture> backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  McpHttpTransport transport{server, http};
  std::string url;
  TaskServerOverHttp() {
    auto port = http.start();
    EXPECT_TRUE(port.ok());
    url = http.base_url() + "/mcp";
  }
  ~TaskServerOverHttp() { http.stop(); }
};

McpClientOptions elicitation_client() {
  McpClientOptions o;
  o.capabilities = {{"elicitation", json::object()}};
  return o;
}

TEST(McpClientTasks, ACallTheServerRunsAsATaskCompletesWithTheTasksResult) {
  TaskServerOverHttp s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h);
  ASSERT_TRUE(connect(*c).ok());
  EXPECT_TRUE(c->server_capabilities()["extensions"].contains(kTasksExtension));
  auto r = call(*c, "slow_compute", {{"seconds", 0.3}, {"label", "c"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "Computed c after 0.3 s");
  EXPECT_EQ(s.server.tasks().size(), 1u);  // it was a task
  // A tool that runs only as a task works too; its tool error is a result.
  auto failing = call(*c, "failing_job");
  ASSERT_TRUE(failing.ok()) << failing.error().message;
  EXPECT_EQ((*failing)["isError"], true);
  // A task that fails with a JSON-RPC error is an error of the call.
  auto broken = call(*c, "protocol_error_job");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("-32603"), std::string::npos) << broken.error().message;
  c->close();
}

TEST(McpClientTasks, WithoutTasksARequiredTaskToolIsRefused) {
  TaskServerOverHttp s;
  http::HttpClient h;
  McpClientOptions o;
  o.use_tasks = false;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, o);
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "failing_job");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("-32021"), std::string::npos) << r.error().message;
  auto sync = call(*c, "slow_compute", {{"seconds", 0}, {"label", "s"}});
  ASSERT_TRUE(sync.ok()) << sync.error().message;
  EXPECT_EQ(s.server.tasks().size(), 0u);
  c->close();
}

TEST(McpClientTasks, TheTasksQuestionsGoToTheRequestHandler) {
  TaskServerOverHttp s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, elicitation_client());
  std::atomic<int> asked{0};
  c->on_request([&](const std::string& method, const json& params, std::function<void(Result<json>)> reply) {
    ++asked;
    EXPECT_EQ(method, "elicitation/create");
    const std::string message = params.value("message", "");
    reply(json{{"action", "accept"}, {"content", {{"confirm", message == "Confirm the deletion?"}}}});
  });
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "confirm_delete", {{"filename", "plan.txt"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "plan.txt: confirm=true");
  EXPECT_EQ(asked.load(), 1);
  c->close();
}

// A call that first asks for input (a round of its own) and then becomes a
// task is one call throughout: known by the id call_tool returned, it
// completes with the task's result and is then no longer cancellable.
TEST(McpClientTasks, ACallAskingForInputBeforeItsTaskCompletesAsOneCall) {
  TaskServerOverHttp s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h, elicitation_client());
  std::atomic<int> asked{0};
  c->on_request([&](const std::string&, const json&, std::function<void(Result<json>)> reply) {
    ++asked;
    reply(json{{"action", "accept"}, {"content", {{"name", "Alice"}}}});
  });
  ASSERT_TRUE(connect(*c).ok());
  auto p = std::make_shared<std::promise<Result<json>>>();
  auto f = p->get_future();
  const int64_t id =
      c->call_tool("test_tool_with_task", json::object(), [p](Result<json> r) { p->set_value(std::move(r)); });
  auto r = get(f);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["content"][0]["text"], "Hello, Alice!");
  EXPECT_EQ(asked.load(), 1);
  EXPECT_EQ(s.server.tasks().size(), 1u);
  EXPECT_EQ(c->tasks_awaited(), 0u);
  EXPECT_FALSE(c->cancel(id, "too late"));
  c->close();
}

TEST(McpClientTasks, CancellingTheCallCancelsItsTask) {
  TaskServerOverHttp s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h);
  ASSERT_TRUE(connect(*c).ok());
  auto p = std::make_shared<std::promise<Result<json>>>();
  auto f = p->get_future();
  const int64_t id =
      c->call_tool("slow_compute", {{"seconds", 600}}, [p](Result<json> r) { p->set_value(std::move(r)); });
  ASSERT_TRUE(eventually([&] { return c->tasks_awaited() == 1; }));
  EXPECT_EQ(s.server.tasks().running(), 1u);
  ASSERT_TRUE(c->cancel(id, "the caller gave up"));
  auto r = get(f);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the caller gave up"), std::string::npos) << r.error().message;
  EXPECT_TRUE(eventually([&] { return s.server.tasks().running() == 0; }));
  EXPECT_EQ(s.server.tasks().size(), 1u);
  c->close();
}

TEST(McpClientTasks, ACallPastItsTimeoutCancelsItsTask) {
  TaskServerOverHttp s;
  http::HttpClient h;
  auto c = McpClient::create(std::make_unique<McpHttpClientTransport>(h, s.url), h);
  ASSERT_TRUE(connect(*c).ok());
  auto r = call(*c, "slow_compute", {{"seconds", 600}}, 1500);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "timeout");
  EXPECT_TRUE(eventually([&] { return s.server.tasks().running() == 0; }));
  c->close();
}

}  // namespace
}  // namespace kaisha::mcp
