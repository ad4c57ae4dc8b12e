// `kaisha serve`'s run_task as a task of the MCP tasks extension
// (io.modelcontextprotocol/tasks, 2026-07-28), on the real company over the
// scripted mock LLM: the call answers with a task at once; the company's
// question (AskUser) shows as the task's input_required with an
// elicitation; tasks/update answers it and the same company task completes.
// tasks/cancel cancels the company's task.
#include <map>

#include "runtime/core/data_paths.hpp"
#include "tests/e2e/serve_fixture.hpp"

namespace kaisha::e2e {
namespace {

class ServeTasksTest : public ServeTest {
 protected:
  // One 2026-07-28 request declaring elicitation and the tasks extension;
  // its JSON-RPC response.
  json call(const std::string& method, json params, const std::string& name) {
    params["_meta"] = {
        {"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities",
         {{"elicitation", json::object()}, {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}}};
    auto r =
        request("POST", "/mcp", json{{"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", method}, {"params", params}}.dump(),
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
  json created =
      call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "the weather at noon"}}}}, "run_task");
  ASSERT_EQ(created["result"]["resultType"], "task") << created.dump() << server_->log();
  const std::string id = created["result"]["taskId"];

  json asking = wait_for(id, "input_required");
  ASSERT_EQ(asking["status"], "input_required") << asking.dump();
  const json& ask = asking["inputRequests"]["answer"];
  EXPECT_EQ(ask["method"], "elicitation/create") << asking.dump();
  EXPECT_EQ(ask["params"]["message"], "どの都市ですか？") << asking.dump();
  EXPECT_EQ(ask["params"]["requestedSchema"]["required"], json::array({"answer"})) << asking.dump();

  json ack = call(
      "tasks/update",
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
  json created =
      call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "the weather tonight"}}}}, "run_task");
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

// A task's id outlives `kaisha serve`: killed (SIGKILL) while the company
// works on a task, the server is started again on the same journal; the
// client asks tasks/get by the ids it was given and gets each task as it
// stands — the one that had completed with its result, the one that was
// running resumed by the restarted server and completed with the answer an
// uninterrupted run gives — under the createdAt and ttlMs it was created
// with. Killed once more after both ended, the next server (a new session:
// nothing was left running) answers them the same.
TEST_F(ServeTasksTest, TaskIdsOutliveAKilledServer) {
  start_mock(kQuickAndSlowScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto run_task = [&](const std::string& task) {
    json created = call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", task}}}}, "run_task");
    EXPECT_EQ(created["result"]["resultType"], "task") << created.dump() << server_->log();
    return created["result"];
  };
  const json quick = run_task("a quick one");
  const std::string quick_id = quick.value("taskId", "");
  const json quick_done = wait_for(quick_id, "completed");
  ASSERT_EQ(quick_done["status"], "completed") << quick_done.dump();
  EXPECT_EQ(quick_done["result"]["content"][0]["text"], "速い答え: 7") << quick_done.dump();

  const json slow = run_task("a slow one");
  const std::string slow_id = slow.value("taskId", "");
  ASSERT_FALSE(slow_id.empty());
  // Killed while the company's model call for it is in flight.
  ASSERT_TRUE(kaisha::e2e::wait_for([&] { return requests_for("ceo-model").size() == 2; }, std::chrono::seconds(30)))
      << server_->log();
  server_->kill9();

  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  json got = call("tasks/get", {{"taskId", quick_id}}, quick_id)["result"];
  EXPECT_EQ(got["status"], "completed") << got.dump() << server_->log();
  EXPECT_EQ(got["result"], quick_done["result"]) << got.dump();
  EXPECT_EQ(got["createdAt"], quick["createdAt"]);
  EXPECT_EQ(got["ttlMs"], quick["ttlMs"]);

  const json slow_done = wait_for(slow_id, "completed");
  ASSERT_EQ(slow_done["status"], "completed") << slow_done.dump() << server_->log();
  EXPECT_FALSE(slow_done["result"].value("isError", false)) << slow_done.dump();
  EXPECT_EQ(slow_done["result"]["content"][0]["text"], "遅い答え: 42") << slow_done.dump();
  EXPECT_EQ(slow_done["createdAt"], slow["createdAt"]);
  EXPECT_EQ(slow_done["ttlMs"], slow["ttlMs"]);
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);  // the call in flight at the kill, once more

  // An id nobody was given is still unknown, with the extension's error.
  json unknown = call("tasks/get", {{"taskId", std::string(32, 'a')}}, std::string(32, 'a'));
  EXPECT_EQ(unknown["error"]["code"], -32602) << unknown.dump();
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("Task not found"), std::string::npos);

  server_->kill9();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(call("tasks/get", {{"taskId", quick_id}}, quick_id)["result"]["result"], quick_done["result"])
      << server_->log();
  json again = call("tasks/get", {{"taskId", slow_id}}, slow_id)["result"];
  EXPECT_EQ(again["status"], "completed") << again.dump();
  EXPECT_EQ(again["result"], slow_done["result"]) << again.dump();
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);
}

// Hostile task ids get the extension's error and the server stays up: a
// 10 KB id, an id that is not UTF-8, the id of an ACP run.
TEST_F(ServeTasksTest, HostileTaskIdsAreRefusedClearly) {
  start_mock(kAskingScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  // 4 KB: its Mcp-Name header still fits the server's header limit.
  const std::string big(4 * 1024, 'f');
  json r = call("tasks/get", {{"taskId", big}}, big);
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump().substr(0, 500);
  EXPECT_LT(r.dump().size(), 1000u) << "the error does not echo the whole id";
  // 10 KB: refused by the HTTP layer, with a status saying so.
  const std::string huge(10 * 1024, 'f');
  auto refused =
      request("POST", "/mcp",
              json{{"jsonrpc", "2.0"}, {"id", 8}, {"method", "tasks/get"}, {"params", {{"taskId", huge}}}}.dump(),
              {{"Accept", "application/json, text/event-stream"},
               {"MCP-Protocol-Version", "2026-07-28"},
               {"Mcp-Method", "tasks/get"},
               {"Mcp-Name", huge}});
  EXPECT_GE(refused.status, 400) << refused.body.substr(0, 500);
  EXPECT_LT(refused.status, 500) << refused.body.substr(0, 500);
  auto run = request("POST", "/acp/runs",
                     json{{"agent_name", "kaisha"},
                          {"mode", "sync"},
                          {"input", {{{"role", "user"}, {"parts", {{{"content", "hello"}}}}}}}}
                         .dump());
  ASSERT_EQ(run.status, 200) << run.body;
  const std::string run_id = json::parse(run.body).value("run_id", "");
  json other = call("tasks/get", {{"taskId", run_id}}, run_id);
  EXPECT_EQ(other["error"]["code"], -32602) << other.dump();
  // Not UTF-8: the body is refused as JSON (before any lookup).
  auto bad = request(
      "POST", "/mcp",
      std::string(R"({"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":")") + "\xff\xfe" + R"("}})",
      {{"Accept", "application/json, text/event-stream"},
       {"MCP-Protocol-Version", "2026-07-28"},
       {"Mcp-Method", "tasks/get"},
       {"Mcp-Name", "x"}});
  EXPECT_GE(bad.status, 200) << server_->log();
  EXPECT_NE(bad.body.find("\"error\""), std::string::npos) << bad.body;
  EXPECT_EQ(request("GET", "/acp/ping", "").status, 200) << server_->log();
}

// HALO served: the example of examples/halo/ (model halo-4o) as any client's
// run_task. halo-4o costs resource units here, so an agent left hired shows
// in the budget.
const std::string kServedHaloExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/halo/";
const char* kServedHaloAnswer = "Snowmelt hurries down / 雪解けの川 sings to the stones / spring in every stone 🌊";

class ServeHaloTest : public ServeTasksTest {
 protected:
  std::string halo_config() {
    ConfigOptions o;
    o.ceo_model = "openai:halo-4o";
    o.resource_total = 300;
    o.extra = "cost_table: " + dir_.write("halo-costs.yaml", R"(
models:
  halo-4o: { model_ref: openai:halo-4o, type: cloud, create_resource_cost: 10, invoke_resource_cost: 10,
             create_expense_cost: 0.5, invoke_expense_cost: 10, output_expense_cost: 20 }
)") + "\nstrategy: halo\nhalo:\n  model: openai:halo-4o\n  max_subtasks: 3\n  equivalence: exact\n" +
              "  search: { max_depth: 2, attempts: 2, max_iterations: 6, max_evaluations: 40 }\n";
    return write_config(o);
  }
  std::string run_task(const std::string& task) {
    json created = call("tools/call", {{"name", "run_task"}, {"arguments", {{"task", task}}}}, "run_task");
    EXPECT_EQ(created["result"]["resultType"], "task") << created.dump() << server_->log();
    return created["result"].value("taskId", "");
  }
  // After a canceled task of session `sid`: the agents are `states` (each
  // fired), no resource unit is held, and each of the `hires` hires was
  // refunded by its fire.
  static void expect_fired_and_refunded(store::JournalStore& j, const std::string& sid,
                                        const std::map<std::string, std::string>& states, int hires) {
    auto agents = j.all_agents(sid);
    ASSERT_TRUE(agents.ok());
    std::map<std::string, std::string> now;
    for (const auto& a : *agents) now[a.name] = a.state;
    EXPECT_EQ(now, states);
    auto budget = j.load_budget_state(sid);
    ASSERT_TRUE(budget.ok() && budget->has_value());
    EXPECT_DOUBLE_EQ((**budget)["resource"]["used"].get<double>(), 0) << (*budget)->dump();
    EXPECT_EQ((**budget)["hired_agents"], 0) << (*budget)->dump();
    auto ledger = j.ledger_entries(sid);
    ASSERT_TRUE(ledger.ok());
    int hired = 0, refunds = 0;
    for (const auto& e : *ledger) {
      if (e.ledger != "resource") continue;
      hired += e.kind == "hire";
      refunds += e.kind == "fire_refund";
    }
    EXPECT_EQ(hired, hires);
    EXPECT_EQ(refunds, hires);
  }
  // The newest session's id in the (stopped) server's journal.
  std::string session() {
    auto j = journal();
    if (!j) return "";
    auto s = j->list_sessions(1);
    return s.ok() && !s->empty() ? s->front().id : "";
  }
};

TEST_F(ServeHaloTest, RunTaskRunsAHaloTaskToTheExamplesAnswer) {
  start_mock_file(kServedHaloExamples + "scenario.yaml");
  cfg_ = halo_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = run_task("川の俳句を書いて: a haiku about a river in spring 🌊");
  ASSERT_FALSE(id.empty());
  json done = wait_for(id, "completed");
  ASSERT_EQ(done["status"], "completed") << done.dump() << server_->log();
  EXPECT_FALSE(done["result"].value("isError", false)) << done.dump();
  EXPECT_EQ(done["result"]["content"][0]["text"], kServedHaloAnswer) << done.dump();
  // HALO ran it: the example's two subtasks, its three roles' drafts.
  EXPECT_EQ(by_rule("planner-second-subtask").size(), 1u);
  EXPECT_FALSE(by_rule("agent-drafts").empty());

  server_->stop();
  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(session());
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().strategy, "halo");
  EXPECT_EQ(tasks->front().status, "done");
  EXPECT_EQ(tasks->front().final_answer, kServedHaloAnswer);
}

// Canceled while its role agents write their first drafts (they take 8 s):
// the task ends canceled, every agent it hired is fired, and the budget holds
// nothing for it any more.
TEST_F(ServeHaloTest, TasksCancelCancelsAHaloTaskAndFiresItsRoleAgents) {
  auto script = read_text_file(kServedHaloExamples + "scenario.yaml");
  ASSERT_TRUE(script.ok()) << script.error().message;
  std::string s = *script;
  const std::string usage = "      usage: { input_tokens: 200, output_tokens: 25 }\n";
  const auto at = s.find(usage, s.find("  - name: agent-drafts\n"));
  ASSERT_NE(at, std::string::npos);
  s.insert(at + usage.size(), "      latency_ms: 8000\n");
  start_mock(s);
  cfg_ = halo_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = run_task("A haiku about a river");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(kaisha::e2e::wait_for([&] { return !by_rule("agent-drafts").empty(); }, std::chrono::seconds(60)))
      << server_->log();
  json ack = call("tasks/cancel", {{"taskId", id}}, id);
  EXPECT_EQ(ack["result"]["resultType"], "complete") << ack.dump();
  EXPECT_EQ(wait_for(id, "cancelled")["status"], "cancelled");
  // Canceled in flight: no revision was asked for.
  EXPECT_TRUE(by_rule("agent-revises").empty());

  server_->stop();
  auto j = journal();
  ASSERT_TRUE(j);
  const std::string sid = session();
  auto tasks = j->tasks(sid);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().status, "canceled");
  // The hires had reserved units, which the fires gave back.
  expect_fired_and_refunded(*j, sid, {{"halo-critic-3", "fired"}, {"halo-editor-2", "fired"}, {"halo-poet-1", "fired"}},
                            3);
}

// HiVA served: the example of examples/hiva/ (model hiva-4o) as any
// client's run_task, one STEV iteration on the singleton v_s -> v_a (the
// task is in no task set, so the aggregator critiques itself). hiva-4o costs
// resource units here, so an agent left hired or an ask left reserved shows
// in the budget.
const std::string kServedHivaExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/hiva/";
const char* kServedHivaTask = "Write a Python function add(a, b) that returns the sum of a and b. 足し算 🧮";
const char* kServedHivaAnswer = "```python\ndef add(a, b):\n    return a + b\n```";

class ServeHivaTest : public ServeHaloTest {
 protected:
  std::string hiva_config() {
    ConfigOptions o;
    o.ceo_model = "openai:hiva-4o";
    o.resource_total = 300;
    o.extra = "cost_table: " + dir_.write("hiva-costs.yaml", R"(
models:
  hiva-4o: { model_ref: openai:hiva-4o, type: cloud, create_resource_cost: 10, invoke_resource_cost: 10,
             create_expense_cost: 0.5, invoke_expense_cost: 10, output_expense_cost: 20 }
)") + "\nstrategy: hiva\nhiva:\n  model: hiva-4o\n  iterations: 1\n";
    return write_config(o);
  }
  // The example's scenario with `first` rules before its own and a self-critique.
  std::string hiva_script(const std::string& first = "") {
    auto text = read_text_file(kServedHivaExamples + "scenario.yaml");
    EXPECT_TRUE(text.ok());
    std::string s = text.ok() ? *text : "rules:\n";
    s.insert(s.find("rules:\n") + 7, first);
    return s + R"(  - name: self-critique
    match: { model: hiva-4o, system: "reviewing your own final answer" }
    reply: { text: "<FEEDBACK>Correct: one function, as asked.</FEEDBACK>", usage: { input_tokens: 100, output_tokens: 15 } }
)";
  }
};

TEST_F(ServeHivaTest, RunTaskRunsAHivaIterationToTheAggregatorsAnswer) {
  start_mock(hiva_script());
  cfg_ = hiva_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = run_task(kServedHivaTask);
  ASSERT_FALSE(id.empty());
  json done = wait_for(id, "completed");
  ASSERT_EQ(done["status"], "completed") << done.dump() << server_->log();
  EXPECT_FALSE(done["result"].value("isError", false)) << done.dump();
  EXPECT_EQ(done["result"]["content"][0]["text"], kServedHivaAnswer) << done.dump();
  // HiVA ran it, the whole iteration: the forward pass, the critique, the
  // backward pass and the source's topology decision.
  EXPECT_EQ(by_rule("source").size(), 1u);
  EXPECT_EQ(by_rule("aggregator-add").size(), 1u);
  EXPECT_EQ(by_rule("self-critique").size(), 1u);
  EXPECT_EQ(by_rule("source-adds-a-coder").size(), 1u);

  server_->stop();
  auto j = journal();
  ASSERT_TRUE(j);
  const std::string sid = session();
  auto tasks = j->tasks(sid);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ(tasks->front().strategy, "hiva");
  EXPECT_EQ(tasks->front().status, "done");
  EXPECT_EQ(tasks->front().final_answer, kServedHivaAnswer);
  EXPECT_EQ(tasks->front().input, kServedHivaTask);
  auto budget = j->load_budget_state(sid);
  ASSERT_TRUE(budget.ok() && budget->has_value());
  EXPECT_EQ((**budget)["hired_agents"], 0) << (*budget)->dump();
}

// Canceled while the aggregator writes its answer (it takes 8 s): the
// forward pass stops there (no critique, no gradient is asked for), the
// task ends canceled, both graph agents are fired, and the budget holds
// nothing for it any more: the ask in flight was settled. The same over
// MCP's tasks/cancel, A2A's CancelTask and ACP's /runs/{id}/cancel.
class ServeHivaCancelTest : public ServeHivaTest {
 protected:
  // A served company whose aggregator is slow; returns once it is set up.
  void start_with_a_slow_aggregator() {
    start_mock(hiva_script(R"(  - name: aggregator-slow
    match: { model: hiva-4o, system: "You are the aggregator" }
    reply: { text: "too late", usage: { input_tokens: 120, output_tokens: 20 }, latency_ms: 8000 }
)"));
    cfg_ = hiva_config();
    start_serve();
  }
  bool aggregator_asked() {
    return kaisha::e2e::wait_for([&] { return !by_rule("aggregator-slow").empty(); }, std::chrono::seconds(60));
  }
  // After the cancel: nothing after the forward pass was asked for; then,
  // with the server stopped, the journal's HiVA task is canceled, its two
  // agents fired and the budget holds nothing for them.
  void expect_the_forward_pass_stopped_and_settled() {
    EXPECT_TRUE(by_rule("self-critique").empty());
    EXPECT_TRUE(by_rule("system-feedback").empty());
    EXPECT_EQ(mock_->request_log().size(), 2u);  // the source and the aggregator

    server_->stop();
    auto j = journal();
    ASSERT_TRUE(j);
    // The session that ran it (a protocol's context may have its own).
    std::string sid;
    std::vector<store::TaskRow> hiva;
    auto sessions = j->list_sessions();
    ASSERT_TRUE(sessions.ok());
    for (const auto& s : *sessions) {
      auto tasks = j->tasks(s.id);
      ASSERT_TRUE(tasks.ok());
      for (const auto& t : *tasks)
        if (t.strategy == "hiva") {
          hiva.push_back(t);
          sid = s.id;
        }
    }
    ASSERT_EQ(hiva.size(), 1u);
    EXPECT_EQ(hiva.front().status, "canceled");
    expect_fired_and_refunded(*j, sid, {{"hiva-aggregator", "fired"}, {"hiva-source", "fired"}}, 2);
  }
};

TEST_F(ServeHivaCancelTest, TasksCancelStopsTheForwardPassAndSettlesItsCalls) {
  start_with_a_slow_aggregator();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = run_task(kServedHivaTask);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(aggregator_asked()) << server_->log();
  json ack = call("tasks/cancel", {{"taskId", id}}, id);
  EXPECT_EQ(ack["result"]["resultType"], "complete") << ack.dump();
  EXPECT_EQ(wait_for(id, "cancelled")["status"], "cancelled");
  expect_the_forward_pass_stopped_and_settled();
}

TEST_F(ServeHivaCancelTest, A2aCancelTaskStopsTheForwardPassAndSettlesItsCalls) {
  start_with_a_slow_aggregator();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = a2a_start(kServedHivaTask);
  ASSERT_FALSE(id.empty()) << server_->log();
  ASSERT_TRUE(aggregator_asked()) << server_->log();
  json canceled = a2a_task_call("CancelTask", id);
  EXPECT_EQ(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED") << canceled.dump();
  ASSERT_TRUE(kaisha::e2e::wait_for(
      [&] { return a2a_task_call("GetTask", id)["result"]["status"]["state"] == "TASK_STATE_CANCELED"; },
      std::chrono::seconds(30)))
      << server_->log();
  expect_the_forward_pass_stopped_and_settled();
}

TEST_F(ServeHivaCancelTest, AcpRunCancelStopsTheForwardPassAndSettlesItsCalls) {
  start_with_a_slow_aggregator();
  ASSERT_FALSE(HasFatalFailure());
  const std::string id = acp_start_async(kServedHivaTask);
  ASSERT_FALSE(id.empty()) << server_->log();
  ASSERT_TRUE(aggregator_asked()) << server_->log();
  EXPECT_EQ(request("POST", "/acp/runs/" + id + "/cancel", "").status, 202) << server_->log();
  ASSERT_TRUE(
      kaisha::e2e::wait_for([&] { return acp_run(id).value("status", "") == "cancelled"; }, std::chrono::seconds(30)))
      << server_->log();
  expect_the_forward_pass_stopped_and_settled();
}

}  // namespace
}  // namespace kaisha::e2e
