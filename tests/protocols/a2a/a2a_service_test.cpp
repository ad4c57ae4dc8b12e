#include "protocols/a2a/a2a_service.hpp"
#include "protocols/a2a/tck_scenario_agent.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::a2a {
namespace {

using testing::FakeCompanyService;

json call(const A2aService& s, const json& request) {
  std::optional<json> out;
  s.dispatcher().dispatch_body(request.dump(), jsonrpc::Context{}, [&](std::optional<json> r) { out = r; });
  return out.value_or(json());
}

json rpc(const std::string& method, json params, json id = 1) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json v1_message(const std::string& text) {
  return json{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", {{{"text", text}}}}};
}
json v03_message(const std::string& text) {
  return json{
      {"kind", "message"}, {"messageId", "m1"}, {"role", "user"}, {"parts", {{{"kind", "text"}, {"text", text}}}}};
}

struct Collected {
  std::mutex mu;
  std::vector<json> events;
  int done = 0;
  bool open = true;
};

void run_stream(A2aService& s, const json& request, Collected& c) {
  jsonrpc::Request r;
  r.method = request["method"];
  r.params = request["params"];
  r.id = request["id"];
  s.stream(
      r,
      [&c](const json& e) {
        std::lock_guard lock(c.mu);
        if (!c.open) return false;
        c.events.push_back(e);
        return true;
      },
      [&c] {
        std::lock_guard lock(c.mu);
        ++c.done;
      });
}

TEST(A2aService, BlockingSendMessageReturnsTheCompletedTaskInV1Shape) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string& in) { return "answer to " + in; };
  A2aService s(company);
  json r = call(s, rpc("SendMessage", {{"message", v1_message("write a haiku")}}, 7));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["id"], 7);
  const json& t = r["result"]["task"];
  EXPECT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "answer to write a haiku");
  EXPECT_EQ(t["contextId"], "s-fake");
  EXPECT_EQ(company.inputs, std::vector<std::string>{"write a haiku"});
}

TEST(A2aService, V03MethodNameGetsV03Shapes) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return "ok"; };
  A2aService s(company);
  json r = call(s, rpc("message/send", {{"message", v03_message("hello")}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["kind"], "task");
  EXPECT_EQ(r["result"]["status"]["state"], "completed");
  json g = call(s, rpc("tasks/get", {{"id", r["result"]["id"]}}));
  EXPECT_EQ(g["result"]["kind"], "task");
  EXPECT_EQ(g["result"]["artifacts"][0]["parts"][0]["text"], "ok");
}

TEST(A2aService, ReturnImmediatelyAnswersWithTheTaskStillSubmitted) {
  FakeCompanyService company;
  A2aService s(company);
  json r = call(
      s, rpc("SendMessage", {{"message", v1_message("long job")}, {"configuration", {{"returnImmediately", true}}}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
  const std::string id = r["result"]["task"]["id"];
  company.start(id, "thinking");
  EXPECT_EQ(call(s, rpc("GetTask", {{"id", id}}))["result"]["status"]["state"], "TASK_STATE_WORKING");
  company.complete(id, "done");
  json done = call(s, rpc("GetTask", {{"id", id}, {"historyLength", 0}}));
  EXPECT_EQ(done["result"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_TRUE(done["result"]["history"].empty());
  // v0.3's flag says the same thing.
  json r03 = call(s, rpc("message/send", {{"message", v03_message("x")}, {"configuration", {{"blocking", false}}}}));
  EXPECT_EQ(r03["result"]["status"]["state"], "submitted");
}

TEST(A2aService, BlockingSendWaitsForATaskFinishedByAnotherThread) {
  FakeCompanyService company;
  A2aService s(company);
  std::thread worker([&] {
    // Finish t1 once it exists; the service is blocked in wait() meanwhile.
    while (!company.task("t1")) std::this_thread::yield();
    company.start("t1", "on it");
    company.complete("t1", "finished elsewhere");
  });
  json r = call(s, rpc("SendMessage", {{"message", v1_message("job")}}));
  worker.join();
  EXPECT_EQ(r["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(r["result"]["task"]["artifacts"][0]["parts"][0]["text"], "finished elsewhere");
}

TEST(A2aService, CancelReachesTheCompanyAndEndedTasksAreNotCancelable) {
  FakeCompanyService company;
  A2aService s(company);
  json r =
      call(s, rpc("SendMessage", {{"message", v1_message("job")}, {"configuration", {{"returnImmediately", true}}}}));
  const std::string id = r["result"]["task"]["id"];
  company.start(id, "working");
  json c = call(s, rpc("CancelTask", {{"id", id}}));
  ASSERT_TRUE(c.contains("result")) << c.dump();
  EXPECT_EQ(c["result"]["status"]["state"], "TASK_STATE_CANCELED");
  EXPECT_EQ(company.cancels, 1);
  json again = call(s, rpc("tasks/cancel", {{"id", id}}));
  ASSERT_TRUE(again.contains("error"));
  EXPECT_EQ(again["error"]["code"], code::kTaskNotCancelable);
  EXPECT_EQ(company.cancels, 1);
}

TEST(A2aService, UnknownTasksAndBadParamsGetA2aErrors) {
  FakeCompanyService company;
  A2aService s(company);
  EXPECT_EQ(call(s, rpc("GetTask", {{"id", "nope"}}))["error"]["code"], code::kTaskNotFound);
  EXPECT_EQ(call(s, rpc("CancelTask", {{"id", "nope"}}))["error"]["code"], code::kTaskNotFound);
  EXPECT_EQ(call(s, rpc("GetTask", json::object()))["error"]["code"], -32602);
  EXPECT_EQ(call(s, rpc("SendMessage", {{"message", "hi"}}))["error"]["code"], -32602);
  json no_role = call(s, rpc("SendMessage", {{"message", {{"parts", {{{"text", "x"}}}}}}}));
  EXPECT_EQ(no_role["error"]["code"], -32602);
  EXPECT_NE(no_role["error"]["message"].get<std::string>().find("role"), std::string::npos);
  json file = call(s, rpc("SendMessage", {{"message", {{"role", "ROLE_USER"}, {"parts", {{{"url", "http://x"}}}}}}}));
  EXPECT_EQ(file["error"]["code"], code::kContentTypeNotSupported);
  EXPECT_EQ(call(s, rpc("tasks/list", json::object()))["error"]["code"], -32601);
  EXPECT_EQ(call(s, rpc("CreateTaskPushNotificationConfig", json::object()))["error"]["code"], -32003);
  EXPECT_TRUE(company.inputs.empty());
}

TEST(A2aService, AMessageForAnEndedTaskIsRefusedNotResubmitted) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return "ok"; };
  A2aService s(company);
  json r = call(s, rpc("SendMessage", {{"message", v1_message("first")}}));
  json follow = v1_message("more");
  follow["taskId"] = r["result"]["task"]["id"];
  json again = call(s, rpc("SendMessage", {{"message", follow}}));
  EXPECT_EQ(again["error"]["code"], code::kUnsupportedOperation);
  EXPECT_EQ(company.inputs.size(), 1u);
}

TEST(A2aService, ListTasksNewestFirstWithStatusFilter) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string& in) { return in == "bad" ? std::string("ERROR:broken") : "ok"; };
  A2aService s(company);
  call(s, rpc("SendMessage", {{"message", v1_message("good")}}));
  call(s, rpc("SendMessage", {{"message", v1_message("bad")}}));
  json all = call(s, rpc("ListTasks", json::object()));
  ASSERT_EQ(all["result"]["tasks"].size(), 2u);
  EXPECT_EQ(all["result"]["tasks"][0]["id"], "t2");
  json failed = call(s, rpc("ListTasks", {{"status", "TASK_STATE_FAILED"}}));
  ASSERT_EQ(failed["result"]["tasks"].size(), 1u);
  EXPECT_EQ(failed["result"]["tasks"][0]["status"]["message"]["parts"][0]["text"], "broken");
}

TEST(A2aService, ListTasksPagesThroughEveryTaskOnceWithACursor) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return std::string("ok"); };
  A2aService s(company);
  for (int i = 0; i < 5; ++i) call(s, rpc("SendMessage", {{"message", v1_message("task " + std::to_string(i))}}));
  std::vector<std::string> seen;
  json page = call(s, rpc("ListTasks", {{"pageSize", 2}}));
  for (int pages = 1;; ++pages) {
    ASSERT_TRUE(page.contains("result")) << page.dump();
    EXPECT_EQ(page["result"]["totalSize"], pages == 1 ? 5 : 6);  // the late task counts
    EXPECT_EQ(page["result"]["pageSize"], 2);
    for (const auto& t : page["result"]["tasks"]) seen.push_back(t["id"]);
    const std::string next = page["result"]["nextPageToken"];
    if (next.empty()) {
      EXPECT_EQ(pages, 3);
      break;
    }
    ASSERT_LT(pages, 3);
    // A task created between pages goes ahead of the cursor: the pages after it are not shifted.
    if (pages == 1) call(s, rpc("SendMessage", {{"message", v1_message("late")}}));
    page = call(s, rpc("ListTasks", {{"pageSize", 2}, {"pageToken", next}}));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"t5", "t4", "t3", "t2", "t1"}));
}

TEST(A2aService, ListTasksKeepsTasksUpdatedAtOrAfterATimestamp) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return std::string("ok"); };
  A2aService s(company);
  for (int i = 0; i < 3; ++i) call(s, rpc("SendMessage", {{"message", v1_message("task " + std::to_string(i))}}));
  const json t2 = call(s, rpc("GetTask", {{"id", "t2"}}));
  const std::string when = t2["result"]["status"]["timestamp"];
  json listed = call(s, rpc("ListTasks", {{"statusTimestampAfter", when}}));
  ASSERT_TRUE(listed.contains("result")) << listed.dump();
  ASSERT_EQ(listed["result"]["tasks"].size(), 2u);
  EXPECT_EQ(listed["result"]["tasks"][0]["id"], "t3");
  EXPECT_EQ(listed["result"]["tasks"][1]["id"], "t2");
  EXPECT_EQ(listed["result"]["totalSize"], 2);
  EXPECT_EQ(listed["result"]["nextPageToken"], "");
}

TEST(A2aService, ListTasksNamesTheParameterItCannotUse) {
  FakeCompanyService company;
  A2aService s(company);
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"pageSize", 0}}, "params.pageSize: must be between 1 and 100 (got 0)"},
      {{{"pageSize", 150}}, "params.pageSize: must be between 1 and 100 (got 150)"},
      {{{"status", "running"}}, "params.status: unknown task state 'running'"},
      {{{"statusTimestampAfter", "yesterday"}}, "params.statusTimestampAfter"},
      {{{"statusTimestampAfter", "2026-11-29T10:00:00"}}, "with a zone"},
      {{{"pageToken", "not-a-token"}}, "params.pageToken: 'not-a-token' is not a token this agent gave"},
  };
  for (const auto& [params, why] : bad) {
    json r = call(s, rpc("ListTasks", params));
    ASSERT_TRUE(r.contains("error")) << params.dump();
    EXPECT_EQ(r["error"]["code"], jsonrpc::code::kInvalidParams) << params.dump();
    EXPECT_NE(r["error"]["message"].get<std::string>().find(why), std::string::npos) << r.dump();
  }
}

TEST(A2aService, StreamSendsTaskThenUpdatesThenArtifactAndCompletion) {
  FakeCompanyService company;
  A2aService s(company);
  Collected c;
  run_stream(s, rpc("SendStreamingMessage", {{"message", v1_message("stream me")}}, "r1"), c);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0]["id"], "r1");
  EXPECT_EQ(c.events[0]["result"]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
  const std::string id = c.events[0]["result"]["task"]["id"];
  company.start(id, "planning");
  company.emit(id, "hire", "Poet (llama3.2, local)");
  company.complete(id, "the answer");
  ASSERT_EQ(c.done, 1);
  std::vector<std::string> kinds;
  for (const auto& e : c.events) kinds.push_back(e["result"].begin().key());
  EXPECT_EQ(kinds, (std::vector<std::string>{"task", "statusUpdate", "statusUpdate", "statusUpdate", "artifactUpdate",
                                             "statusUpdate"}));
  EXPECT_EQ(c.events[2]["result"]["statusUpdate"]["status"]["message"]["parts"][0]["text"], "planning");
  EXPECT_EQ(c.events[3]["result"]["statusUpdate"]["metadata"]["kaisha"]["kind"], "hire");
  EXPECT_EQ(c.events[4]["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"], "the answer");
  EXPECT_EQ(c.events[5]["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
  // Nothing after the end.
  company.emit(id, "thinking", "late");
  EXPECT_EQ(c.events.size(), 6u);
}

TEST(A2aService, V03StreamOfAFailingTaskEndsWithFinalFailedStatus) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return std::string("ERROR:no model answered"); };
  A2aService s(company);
  Collected c;
  run_stream(s, rpc("message/stream", {{"message", v03_message("x")}}), c);
  ASSERT_EQ(c.done, 1);
  ASSERT_GE(c.events.size(), 3u);
  EXPECT_EQ(c.events.front()["result"]["kind"], "task");
  const json& last = c.events.back()["result"];
  EXPECT_EQ(last["kind"], "status-update");
  EXPECT_EQ(last["status"]["state"], "failed");
  EXPECT_EQ(last["final"], true);
  EXPECT_EQ(last["status"]["message"]["parts"][0]["text"], "no model answered");
}

TEST(A2aService, StreamOfACanceledTaskEndsCanceled) {
  FakeCompanyService company;
  A2aService s(company);
  Collected c;
  run_stream(s, rpc("SendStreamingMessage", {{"message", v1_message("x")}}), c);
  const std::string id = c.events[0]["result"]["task"]["id"];
  company.start(id, "busy");
  ASSERT_TRUE(company.cancel(id).ok());
  ASSERT_EQ(c.done, 1);
  EXPECT_EQ(c.events.back()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_CANCELED");
}

TEST(A2aService, ResubscribeReplaysARunningTaskAndRefusesAnEndedOne) {
  FakeCompanyService company;
  A2aService s(company);
  json r =
      call(s, rpc("SendMessage", {{"message", v1_message("job")}, {"configuration", {{"returnImmediately", true}}}}));
  const std::string id = r["result"]["task"]["id"];
  company.start(id, "step one");
  Collected c;
  run_stream(s, rpc("SubscribeToTask", {{"id", id}}), c);
  ASSERT_EQ(c.events.size(), 3u);  // task (working), working, "step one"
  EXPECT_EQ(c.events[0]["result"]["task"]["status"]["state"], "TASK_STATE_WORKING");
  company.complete(id, "fin");
  EXPECT_EQ(c.done, 1);
  Collected late;
  run_stream(s, rpc("SubscribeToTask", {{"id", id}}), late);
  ASSERT_EQ(late.events.size(), 1u);
  EXPECT_EQ(late.events[0]["error"]["code"], code::kUnsupportedOperation);
  EXPECT_EQ(late.done, 1);
}

TEST(A2aService, APeerThatLeftEndsTheStream) {
  FakeCompanyService company;
  A2aService s(company);
  Collected c;
  run_stream(s, rpc("SendStreamingMessage", {{"message", v1_message("x")}}), c);
  const std::string id = c.events[0]["result"]["task"]["id"];
  {
    std::lock_guard lock(c.mu);
    c.open = false;
  }
  company.start(id, "nobody listens");
  EXPECT_EQ(c.done, 1);
  company.complete(id, "fin");
  EXPECT_EQ(c.done, 1);
}

TEST(A2aService, StreamErrorsComeAsOneErrorEvent) {
  FakeCompanyService company;
  A2aService s(company);
  Collected c;
  run_stream(s, rpc("SendStreamingMessage", {{"message", {{"role", "ROLE_USER"}}}}), c);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0]["error"]["code"], -32602);
  EXPECT_EQ(c.done, 1);
  Collected d;
  run_stream(s, rpc("SubscribeToTask", {{"id", "missing"}}), d);
  EXPECT_EQ(d.events[0]["error"]["code"], code::kTaskNotFound);
}

// ---- the service over an agent that is not the company ---------------------

json tck_message(const std::string& message_id, const json& extra = json::object()) {
  json m{{"messageId", message_id}, {"role", "ROLE_USER"}, {"parts", {{{"text", "x"}}}}};
  m.update(extra);
  return m;
}

TEST(A2aServiceAgents, FileAndDataPartsTakeEachErasShape) {
  A2aService s(std::make_shared<TckScenarioAgent>(std::chrono::milliseconds(50)));
  json v03 = call(s, rpc("message/send", {{"message", tck_message("tck-artifact-file-1")}}));
  json part = v03["result"]["artifacts"][0]["parts"][0];
  EXPECT_EQ(part["kind"], "file");
  EXPECT_EQ(part["file"]["bytes"], "dGNr");
  EXPECT_EQ(part["file"]["name"], "output.txt");
  EXPECT_EQ(part["file"]["mimeType"], "text/plain");
  json data = call(s, rpc("message/send", {{"message", tck_message("tck-artifact-data-1")}}));
  EXPECT_EQ(data["result"]["artifacts"][0]["parts"][0]["kind"], "data");
  EXPECT_EQ(data["result"]["artifacts"][0]["parts"][0]["data"]["count"], 42);
  json rejected = call(s, rpc("SendMessage", {{"message", tck_message("tck-reject-task-1")}}));
  EXPECT_EQ(rejected["result"]["task"]["status"]["state"], "TASK_STATE_REJECTED");
  json old_rejected = call(s, rpc("tasks/get", {{"id", rejected["result"]["task"]["id"]}}));
  EXPECT_EQ(old_rejected["result"]["status"]["state"], "rejected");
  // A Message answer in v0.3 is the bare message.
  json reply = call(s, rpc("message/send", {{"message", tck_message("tck-message-response-1")}}));
  EXPECT_EQ(reply["result"]["kind"], "message");
  EXPECT_EQ(reply["result"]["role"], "agent");
}

TEST(A2aServiceAgents, BlockingSendWaitsForTheLongTaskAndTheStreamSeesItWork) {
  A2aService s(std::make_shared<TckScenarioAgent>(std::chrono::milliseconds(100)));
  json done = call(s, rpc("SendMessage", {{"message", tck_message("test-resubscribe-message-id-1")}}));
  EXPECT_EQ(done["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  Collected c;
  run_stream(s, rpc("SendStreamingMessage", {{"message", tck_message("test-resubscribe-message-id-2")}}), c);
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(c.mu);
      if (c.done) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::lock_guard lock(c.mu);
  ASSERT_EQ(c.done, 1);
  ASSERT_EQ(c.events.size(), 3u);
  EXPECT_EQ(c.events[1]["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
  EXPECT_EQ(c.events[2]["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
}

TEST(A2aServiceAgents, AStreamEndsWhenInputIsRequiredButASubscriptionFollowsTheTaskToItsEnd) {
  A2aService s(std::make_shared<TckScenarioAgent>(std::chrono::milliseconds(50)));
  Collected first;
  run_stream(s, rpc("SendStreamingMessage", {{"message", tck_message("tck-input-required-1")}}), first);
  {
    std::lock_guard lock(first.mu);
    ASSERT_EQ(first.done, 1);  // the agent asked for input: that turn's stream is over
    EXPECT_EQ(first.events.back()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
  }
  const std::string id = first.events[0]["result"]["task"]["id"];
  Collected sub;
  run_stream(s, rpc("SubscribeToTask", {{"id", id}}), sub);
  {
    std::lock_guard lock(sub.mu);
    EXPECT_EQ(sub.done, 0);  // still open across the interruption
  }
  json done = call(s, rpc("SendMessage", {{"message", tck_message("tck-complete-task-2", {{"taskId", id}})}}));
  EXPECT_EQ(done["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  std::lock_guard lock(sub.mu);
  EXPECT_EQ(sub.done, 1);
  EXPECT_EQ(sub.events.back()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
}

}  // namespace
}  // namespace kaisha::a2a
