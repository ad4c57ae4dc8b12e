// `kaisha serve`'s run_task as a task of the MCP tasks extension
// (io.modelcontextprotocol/tasks, 2026-07-28), on the real company over the
// scripted mock LLM: the call answers with a task at once; the company's
// question (AskUser) shows as the task's input_required with an
// elicitation; tasks/update answers it and the same company task completes.
// tasks/cancel cancels the company's task.
#include "tests/e2e/serve_fixture.hpp"

namespace kaisha::e2e {
namespace {


class ServeTasksTest : public ServeTest {
 protected:
  // One 2026-07-28 request declaring elicitation and the tasks extension;
  // its JSON-RPC response.
  json call(const std::string& method, json params, const std::string& name) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities",
                        {{"elicitation", json::object()}, {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}}};
    auto r = request("POST", "/mcp", json{{"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", method}, {"params", params}}.dump(),
                     {{"Accept", "application/json, text/event-stream"},
                      {"MCP-Protocol-Version", "2026-07-28"},
                      {"Mcp-Method", method},
                      {"Mcp-Name", name}});
    EXPECT_EQ(r.status, 200) << r.body;
    if (r.header("content-type").find("event-stream") != std::string::npos) {
      auto events = sse_events(r.body);
      return events.empty() ? json() : events.back();
    }
    return json::parse(r.body, nullptr, false);
  }
  // tasks/get until the task reports `status` or ends (bounded at a minute).
  json wait_for(const std::string& id, const std::string& status) {
    json t;
    for (int i = 0; i < 600; ++i) {
      t = call("tasks/get", {{"taskId", id}}, id)["result"];
      const std::string s = t.value("status", "");
      if (s == status || s == "completed" || s == "failed" || s == "cancelled") return t;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return t;
  }
  int ids_ = 0;
};

TEST_F(ServeTasksTest, RunTaskIsATaskWhoseQuestionIsAnsweredByTasksUpdate) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  json created = call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "the weather at noon"}}}}, "run_task");
  ASSERT_EQ(created["result"]["resultType"], "task") << created.dump() << server_->log();
  const std::string id = created["result"]["taskId"];

  json asking = wait_for(id, "input_required");
  ASSERT_EQ(asking["status"], "input_required") << asking.dump();
  const json& ask = asking["inputRequests"]["answer"];
  EXPECT_EQ(ask["method"], "elicitation/create") << asking.dump();
  EXPECT_EQ(ask["params"]["message"], "どの都市ですか？") << asking.dump();
  EXPECT_EQ(ask["params"]["requestedSchema"]["required"], json::array({"answer"})) << asking.dump();

  json ack = call("tasks/update",
                  {{"taskId", id}, {"inputResponses", {{"answer", {{"action", "accept"}, {"content", {{"answer", "名古屋"}}}}}}}},
                  id);
  EXPECT_EQ(ack["result"]["resultType"], "complete") << ack.dump();
  json done = wait_for(id, "completed");
  ASSERT_EQ(done["status"], "completed") << done.dump();
  EXPECT_FALSE(done["result"].value("isError", false)) << done.dump();
  EXPECT_NE(done["result"]["content"][0]["text"].get<std::string>().find("名古屋"), std::string::npos) << done.dump();

  // One company task, asked once.
  server_->stop();
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  EXPECT_EQ(json::parse(history.out)["tasks"].size(), 1u) << history.out;
}

TEST_F(ServeTasksTest, TasksCancelCancelsTheCompanysTask) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  json created = call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "the weather tonight"}}}}, "run_task");
  ASSERT_EQ(created["result"]["resultType"], "task") << created.dump() << server_->log();
  const std::string id = created["result"]["taskId"];
  ASSERT_EQ(wait_for(id, "input_required")["status"], "input_required");
  json ack = call("tasks/cancel", {{"taskId", id}}, id);
  EXPECT_EQ(ack["result"]["resultType"], "complete") << ack.dump();
  EXPECT_EQ(wait_for(id, "cancelled")["status"], "cancelled");

  // The company's task ends cancelled too (the server stops only after it did).
  server_->stop();
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  json tasks = json::parse(history.out)["tasks"];
  ASSERT_EQ(tasks.size(), 1u) << history.out;
  EXPECT_EQ(tasks[0]["status"], "canceled") << history.out;
}

}  // namespace
}  // namespace kaisha::e2e
