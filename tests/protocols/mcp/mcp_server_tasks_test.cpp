// McpServer's tasks extension (io.modelcontextprotocol/tasks) over the
// conformance fixture, without a transport: which calls become tasks, the
// tasks/* methods, input through tasks/update, cancellation, notifications,
// the cap, and what a client that did not declare the extension gets.
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/server/mcp_server.hpp"
#include "protocols/mcp/server/mcp_tasks.hpp"

namespace kaisha::mcp {
namespace {

const json kTasksCaps{{"elicitation", json::object()}, {"extensions", {{kTasksExtension, json::object()}}}};

struct TasksServer {
  std::unique_ptr<ConformanceFixture> fx = std::move(ConformanceFixture::load().value());
  McpServer server;
  std::mutex mu;
  std::vector<json> sent;  // what went out on the requests' streams

  explicit TasksServer(McpServerOptions options = {}) : server(*fx, options) {}

  json call(const std::string& method, json params = json::object(), json caps = kTasksCaps) {
    ModernRequest m;
    m.version = kModernVersion;
    m.client_capabilities = std::move(caps);
    std::promise<std::optional<json>> p;
    auto f = p.get_future();
    McpStream stream{[this](const json& n) {
                       std::lock_guard lock(mu);
                       sent.push_back(n);
                       return true;
                     },
                     nullptr, nullptr};
    server.handle_modern(jsonrpc::Request{method, std::move(params), json(9), false}, m, nullptr, stream,
                         [&p](std::optional<json> r) { p.set_value(std::move(r)); });
    auto r = f.get();
    return r ? *r : json(nullptr);
  }
  json get(const std::string& id) { return call("tasks/get", {{"taskId", id}})["result"]; }
  // Polls until the task reports `status` or ends (the test's own timeout
  // bounds it, not a clock here).
  json wait_for(const std::string& id, const std::string& status) {
    while (true) {
      json t = get(id);
      const std::string s = t.value("status", "");
      if (s == status || s == "completed" || s == "failed" || s == "cancelled" || s.empty()) return t;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

TEST(McpServerTasks, DiscoverAdvertisesTheExtension) {
  TasksServer s;
  json caps = s.call("server/discover")["result"]["capabilities"];
  EXPECT_TRUE(caps["extensions"].contains(kTasksExtension));
  EXPECT_FALSE(caps.contains("tasks"));
}

TEST(McpServerTasks, ATaskToolCallIsAFlatCreateTaskResultThenCompletesWithItsResult) {
  TasksServer s;
  json created =
      s.call("tools/call", {{"name", "slow_compute"}, {"arguments", {{"seconds", 0.1}, {"label", "x"}}}})["result"];
  EXPECT_EQ(created["resultType"], "task");
  EXPECT_EQ(created["status"], "working");
  EXPECT_FALSE(created.contains("task"));
  EXPECT_FALSE(created.contains("result"));
  const std::string id = created["taskId"];
  json now = s.get(id);  // resolvable at once
  EXPECT_EQ(now["taskId"], id);
  EXPECT_EQ(now["resultType"], "complete");
  json done = s.wait_for(id, "completed");
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["result"]["content"][0]["text"], "Computed x after 0.1 s");
}

TEST(McpServerTasks, ASyncToolStaysSyncEvenWithTheExtension) {
  TasksServer s;
  json r = s.call("tools/call", {{"name", "greet"}, {"arguments", {{"name", "A"}}}, {"task", {{"ttl", 5}}}})["result"];
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["content"][0]["text"], "Hello, A!");
}

TEST(McpServerTasks, CancelAcksEmptyAndTheTaskEndsCancelled) {
  TasksServer s;
  const std::string id =
      s.call("tools/call", {{"name", "slow_compute"}, {"arguments", {{"seconds", 600}}}})["result"]["taskId"];
  json ack = s.call("tasks/cancel", {{"taskId", id}})["result"];
  EXPECT_EQ(ack["resultType"], "complete");
  EXPECT_FALSE(ack.contains("taskId"));
  EXPECT_FALSE(ack.contains("status"));
  EXPECT_EQ(s.get(id)["status"], "cancelled");
  EXPECT_EQ(s.call("tasks/cancel", {{"taskId", id}})["result"]["resultType"], "complete");  // idempotent
}

TEST(McpServerTasks, InputIsAskedThroughTheTaskAndAnsweredByTasksUpdate) {
  TasksServer s;
  const std::string id =
      s.call("tools/call", {{"name", "confirm_delete"}, {"arguments", {{"filename", "a.txt"}}}})["result"]["taskId"];
  json waiting = s.wait_for(id, "input_required");
  ASSERT_EQ(waiting["status"], "input_required");
  ASSERT_TRUE(waiting["inputRequests"].contains("confirm")) << waiting.dump();
  EXPECT_EQ(waiting["inputRequests"]["confirm"]["method"], "elicitation/create");
  const json yes{{"action", "accept"}, {"content", {{"confirm", true}}}};
  json ack = s.call("tasks/update", {{"taskId", id}, {"inputResponses", {{"confirm", yes}}}})["result"];
  EXPECT_EQ(ack["resultType"], "complete");
  json done = s.wait_for(id, "completed");
  EXPECT_EQ(done["result"]["content"][0]["text"], "a.txt: confirm=true");
}

TEST(McpServerTasks, AProtocolErrorFailsTheTaskAndAToolErrorCompletesIt) {
  TasksServer s;
  const std::string failing = s.call("tools/call", {{"name", "protocol_error_job"}})["result"]["taskId"];
  const std::string erring = s.call("tools/call", {{"name", "failing_job"}})["result"]["taskId"];
  json failed = s.wait_for(failing, "failed");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"]["code"], -32603);
  EXPECT_FALSE(failed.contains("result"));
  json completed = s.wait_for(erring, "completed");
  EXPECT_EQ(completed["status"], "completed");
  EXPECT_EQ(completed["result"]["isError"], true);
}

TEST(McpServerTasks, MultiRoundTripInputComesBeforeTheTask) {
  TasksServer s;
  json r1 = s.call("tools/call", {{"name", "test_tool_with_task"}})["result"];
  ASSERT_EQ(r1["resultType"], "input_required") << r1.dump();
  EXPECT_FALSE(r1.contains("taskId"));
  const json alice{{"action", "accept"}, {"content", {{"name", "Alice"}}}};
  json r2 = s.call("tools/call", {{"name", "test_tool_with_task"},
                                  {"inputResponses", {{"user_name", alice}}},
                                  {"requestState", r1["requestState"]}})["result"];
  ASSERT_EQ(r2["resultType"], "task") << r2.dump();
  EXPECT_FALSE(r2.contains("requestState"));
  json done = s.wait_for(r2["taskId"], "completed");
  EXPECT_EQ(done["result"]["content"][0]["text"], "Hello, Alice!");
}

TEST(McpServerTasks, AClientWithoutTheExtensionGetsSyncResultsAndMissingCapabilityErrors) {
  TasksServer s;
  const json plain = json::object();
  json sync = s.call("tools/call", {{"name", "slow_compute"}, {"arguments", {{"seconds", 0}, {"label", "s"}}}},
                     plain)["result"];
  EXPECT_EQ(sync["resultType"], "complete");
  EXPECT_FALSE(sync.contains("taskId"));
  json required = s.call("tools/call", {{"name", "failing_job"}}, plain)["error"];
  EXPECT_EQ(required["code"], kMissingRequiredClientCapability);
  EXPECT_TRUE(required["data"]["requiredCapabilities"]["extensions"].contains(kTasksExtension));
  for (const char* m : {"tasks/get", "tasks/cancel"})
    EXPECT_EQ(s.call(m, {{"taskId", "x"}}, plain)["error"]["code"], kMissingRequiredClientCapability) << m;
  EXPECT_EQ(s.call("tasks/update", {{"taskId", "x"}, {"inputResponses", json::object()}}, plain)["error"]["code"],
            kMissingRequiredClientCapability);
}

TEST(McpServerTasks, UnknownTasksAndRemovedMethods) {
  TasksServer s;
  json e = s.call("tasks/get", {{"taskId", "no-such-task"}})["error"];
  EXPECT_EQ(e["code"], -32602);
  EXPECT_NE(e["message"].get<std::string>().find("Task not found"), std::string::npos);
  EXPECT_EQ(s.call("tasks/result", {{"taskId", "x"}})["error"]["code"], -32601);
  EXPECT_EQ(s.call("tasks/list")["error"]["code"], -32601);
}

TEST(McpServerTasks, TheCapRefusesANewTaskWithAClearError) {
  McpServerOptions options;
  options.tasks.max_live = 1;
  TasksServer s(options);
  const std::string id =
      s.call("tools/call", {{"name", "slow_compute"}, {"arguments", {{"seconds", 600}}}})["result"]["taskId"];
  json e = s.call("tools/call", {{"name", "slow_compute"}, {"arguments", {{"seconds", 600}}}})["error"];
  EXPECT_EQ(e["code"], -32603);
  EXPECT_NE(e["message"].get<std::string>().find("Too many tasks"), std::string::npos) << e.dump();
  s.call("tasks/cancel", {{"taskId", id}});
}

TEST(McpServerTasks, ASubscriptionHearsTheTasksStatus) {
  TasksServer s;
  const std::string id =
      s.call("tools/call", {{"name", "confirm_delete"}, {"arguments", {{"filename", "n.txt"}}}})["result"]["taskId"];
  s.wait_for(id, "input_required");
  std::promise<std::optional<json>> ended;
  std::vector<json> heard;
  std::mutex heard_mu;
  ModernRequest m;
  m.version = kModernVersion;
  m.client_capabilities = kTasksCaps;
  McpStream stream{[&](const json& n) {
                     std::lock_guard lock(heard_mu);
                     heard.push_back(n);
                     return true;
                   },
                   nullptr, nullptr};
  s.server.handle_modern(
      jsonrpc::Request{"subscriptions/listen", {{"notifications", {{"taskIds", {id, "unknown"}}}}}, json(30), false}, m,
      nullptr, stream, [&](std::optional<json> r) { ended.set_value(std::move(r)); });
  const json declined{{"action", "decline"}};
  s.call("tasks/update", {{"taskId", id}, {"inputResponses", {{"confirm", declined}}}});
  s.wait_for(id, "completed");
  s.server.end_subscriptions();
  ended.get_future().get();
  std::lock_guard lock(heard_mu);
  ASSERT_FALSE(heard.empty());
  EXPECT_EQ(heard[0]["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(heard[0]["params"]["notifications"]["taskIds"], json::array({id}));  // the unknown one is not agreed to
  EXPECT_EQ(heard.back()["method"], "notifications/tasks");
  EXPECT_EQ(heard.back()["params"]["taskId"], id);
  EXPECT_EQ(heard.back()["params"]["status"], "completed");
  EXPECT_TRUE(heard.back()["params"].contains("result"));
}

TEST(McpServerTasks, ListeningForTasksNeedsTheExtension) {
  TasksServer s;
  json e = s.call("subscriptions/listen", {{"notifications", {{"taskIds", {"x"}}}}}, json::object())["error"];
  EXPECT_EQ(e["code"], kMissingRequiredClientCapability);
  EXPECT_TRUE(e["data"]["requiredCapabilities"]["extensions"].contains(kTasksExtension));
}

}  // namespace
}  // namespace kaisha::mcp
