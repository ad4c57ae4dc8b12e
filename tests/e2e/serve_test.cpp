// `kaisha serve --http` on the real company (issue 5): the binary serves
// MCP, A2A and ACP on one port against the scripted mock LLM; this test
// drives one real task over each protocol with plain HTTP, then reads the
// journal and the ledgers back with `kaisha history` and `kaisha budget` on
// the same database.
#include "tests/e2e/serve_fixture.hpp"

namespace kaisha::e2e {
namespace {

// The A2A task hires a priced cloud employee and asks it (so the expense
// ledger moves); the ACP and MCP tasks are answered by the CEO itself.
const char* kServeScript = R"(
rules:
  - match: { model: ceo-model, last_role: user, last_user: "via A2A" }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Helper, base_model: gemini-2.0-flash, system_prompt: "You help.", description: "A helper" }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AgentCreator }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Helper, prompt: "Say hello." } } ] }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskAgent }
    reply: { text: "The helper says hello (A2A)." }
  - match: { model: gemini-2.0-flash }
    reply: { text: "hello from the helper" }
  - match: { model: ceo-model, last_user: "via ACP" }
    reply: { text: "ACP answer: 42." }
  - match: { model: ceo-model, last_user: "via MCP" }
    reply: { text: "MCP answer: done." }
)";

// With `serve: sessions: shared`, every client's task runs in the one
// session, one after another (the per-client default: serve_sessions_test).
TEST_F(ServeTest, OneTaskOverEachProtocolIsJournaledAndCharged) {
  start_mock(kServeScript);
  ConfigOptions shared;
  shared.extra = "serve:\n  sessions: shared\n";
  cfg_ = write_config(shared);
  start_serve();
  ASSERT_FALSE(HasFatalFailure());

  // A2A: SendMessage (blocking) then GetTask.
  json message{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "Say hello via A2A"}}})}};
  auto sent =
      request("POST", "/a2a",
              json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "SendMessage"}, {"params", {{"message", message}}}}.dump(),
              {{"A2A-Version", "1.0"}});
  ASSERT_EQ(sent.status, 200) << sent.body << server_->log();
  json task = json::parse(sent.body)["result"]["task"];
  EXPECT_EQ(task["status"]["state"], "TASK_STATE_COMPLETED") << sent.body;
  EXPECT_EQ(task["artifacts"][0]["parts"][0]["text"], "The helper says hello (A2A).");
  auto got =
      request("POST", "/a2a",
              json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "GetTask"}, {"params", {{"id", task["id"]}}}}.dump(),
              {{"A2A-Version", "1.0"}});
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(json::parse(got.body)["result"]["status"]["state"], "TASK_STATE_COMPLETED") << got.body;
  // The card lists the company and the employee it hired.
  auto card = json::parse(request("GET", "/.well-known/agent-card.json", "").body);
  std::vector<std::string> skills;
  for (const auto& s : card["skills"]) skills.push_back(s["id"]);
  EXPECT_EQ(skills, (std::vector<std::string>{"company", "Helper"}));

  // ACP: the company agent's manifest lists the same, then a sync run.
  json manifest = json::parse(request("GET", "/acp/agents/kaisha", "").body);
  std::vector<std::string> capabilities;
  for (const auto& c : manifest["metadata"]["capabilities"]) capabilities.push_back(c["name"]);
  EXPECT_EQ(capabilities, skills) << manifest.dump();

  auto run = request("POST", "/acp/runs",
                     json{{"agent_name", "kaisha"},
                          {"mode", "sync"},
                          {"input", {{{"role", "user"}, {"parts", {{{"content", "Answer via ACP"}}}}}}}}
                         .dump());
  ASSERT_EQ(run.status, 200) << run.body;
  json r = json::parse(run.body);
  EXPECT_EQ(r["status"], "completed") << run.body;
  EXPECT_EQ(r["output"][0]["parts"][0]["content"], "ACP answer: 42.") << run.body;

  // MCP: initialize, then tools/call run_task with a progress token (SSE).
  const auto with_session = open_mcp_session();
  ASSERT_FALSE(with_session.empty());
  auto call = request(
      "POST", "/mcp",
      json{{"jsonrpc", "2.0"},
           {"id", 2},
           {"method", "tools/call"},
           {"params",
            {{"name", "run_task"}, {"arguments", {{"task", "Finish via MCP"}}}, {"_meta", {{"progressToken", "p1"}}}}}}
          .dump(),
      with_session);
  ASSERT_EQ(call.status, 200) << call.body;
  std::vector<json> events = sse_events(call.body);
  ASSERT_FALSE(events.empty()) << call.body;
  int progress = 0;
  for (const auto& e : events)
    if (e.value("method", "") == "notifications/progress") {
      ++progress;
      EXPECT_EQ(e["params"]["progressToken"], "p1");
    }
  EXPECT_GE(progress, 1) << call.body;
  const json& result = events.back();
  EXPECT_EQ(result["id"], 2);
  EXPECT_FALSE(result["result"].value("isError", false)) << result.dump();
  EXPECT_NE(result["result"]["content"][0]["text"].get<std::string>().find("MCP answer: done."), std::string::npos)
      << result.dump();

  EXPECT_EQ(stop_and_wait_exit(), 0) << server_->log();

  // The journal and the ledgers, read back by the CLI from the same database.
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  json h = json::parse(history.out);
  std::vector<std::string> inputs;
  for (const auto& t : h["tasks"]) {
    inputs.push_back(t["input"]);
    EXPECT_EQ(t["status"], "done") << t.dump();
  }
  EXPECT_EQ(inputs, (std::vector<std::string>{"Say hello via A2A", "Answer via ACP", "Finish via MCP"}));
  int hires = 0;
  for (const auto& s : h["steps"])
    if (s["kind"] == "hire" && s["payload"].value("agent", "") == "Helper") ++hires;
  EXPECT_EQ(hires, 1);

  RunResult budget = kaisha({"budget", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  json b = json::parse(budget.out);
  EXPECT_EQ(b["totals"]["tasks"], 3) << b.dump();
  EXPECT_GT(b["budget"]["current_expense"].get<double>(), 0) << b.dump();  // the helper's call
  EXPECT_EQ(b["session"], h["session"]);
}

// A 2026-07-28 client needs no session: server/discover, then run_task with
// its _meta and headers, progress on the stream and a complete result.
TEST_F(ServeTest, AStatelessMcpClientRunsATask) {
  start_mock(kServeScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                  {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  auto headers = [](const std::string& method, const std::string& name = "") {
    std::vector<std::pair<std::string, std::string>> h{{"Accept", "application/json, text/event-stream"},
                                                       {"MCP-Protocol-Version", "2026-07-28"},
                                                       {"Mcp-Method", method}};
    if (!name.empty()) h.push_back({"Mcp-Name", name});
    return h;
  };
  auto discover =
      request("POST", "/mcp",
              json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "server/discover"}, {"params", {{"_meta", meta}}}}.dump(),
              headers("server/discover"));
  ASSERT_EQ(discover.status, 200) << discover.body << server_->log();
  // One JSON object, or (on a slow machine) an event stream ending with it.
  json d = discover.header("content-type").find("event-stream") != std::string::npos ? sse_events(discover.body).back()
                                                                                     : json::parse(discover.body);
  EXPECT_EQ(d["result"]["supportedVersions"][0], "2026-07-28") << discover.body;
  EXPECT_TRUE(discover.headers.find("mcp-session-id") == discover.headers.end());

  json call_meta = meta;
  call_meta["progressToken"] = "p2";
  auto call = request(
      "POST", "/mcp",
      json{{"jsonrpc", "2.0"},
           {"id", 2},
           {"method", "tools/call"},
           {"params", {{"name", "run_task"}, {"arguments", {{"task", "Finish via MCP"}}}, {"_meta", call_meta}}}}
          .dump(),
      headers("tools/call", "run_task"));
  ASSERT_EQ(call.status, 200) << call.body;
  std::vector<json> events = sse_events(call.body);
  ASSERT_FALSE(events.empty()) << call.body;
  int progress = 0;
  for (const auto& e : events)
    if (e.value("method", "") == "notifications/progress") ++progress;
  EXPECT_GE(progress, 1) << call.body;
  const json& result = events.back();
  EXPECT_EQ(result["id"], 2);
  EXPECT_EQ(result["result"]["resultType"], "complete") << result.dump();
  EXPECT_NE(result["result"]["content"][0]["text"].get<std::string>().find("MCP answer: done."), std::string::npos)
      << result.dump();
}

// `kaisha serve` killed (SIGKILL) while a task waits on its helper picks the
// session up again when started without --session, and finishes the task:
// the CEO's turns and the hire come from the journal, the helper's question
// in flight is asked again, once.
TEST_F(ServeTest, AKilledServerResumesItsTaskWhenStartedAgain) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_role: user }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Helper, base_model: gemini-2.0-flash, system_prompt: "You help.", description: "A helper" }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AgentCreator }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Helper, prompt: "Say hello." } } ] }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskAgent }
    reply: { text: "助手はこんにちはと言いました 👋" }
  - match: { model: gemini-2.0-flash }
    reply: { text: "hello from the helper", latency_ms: 2000 }
)");
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  // An A2A client sends the task and does not wait for it.
  json message{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "Ask the helper"}}})}};
  auto sent = request("POST", "/a2a",
                      json{{"jsonrpc", "2.0"},
                           {"id", 1},
                           {"method", "SendMessage"},
                           {"params", {{"message", message}, {"configuration", {{"returnImmediately", true}}}}}}
                          .dump(),
                      {{"A2A-Version", "1.0"}});
  ASSERT_EQ(sent.status, 200) << sent.body << server_->log();
  const std::string a2a_task = json::parse(sent.body)["result"]["task"].value("id", "");
  const std::string context = json::parse(sent.body)["result"]["task"].value("contextId", "");
  ASSERT_FALSE(a2a_task.empty()) << sent.body;
  ASSERT_FALSE(context.empty()) << sent.body;
  ASSERT_TRUE(wait_for([&] { return requests_for("gemini-2.0-flash").size() == 1; }, std::chrono::seconds(30)))
      << server_->log();
  // Killed once the CEO's two turns and the hire are kept (a few ms after
  // they came), while the helper answers: only its question is in flight.
  ASSERT_TRUE(wait_for(
      [&] {
        auto t = latest_task(db());
        if (!t) return false;
        for (const auto& o : t->kept)  // the CEO's turn that asks the helper
          if (o.find("\"type\":\"model\"") != std::string::npos && o.find("AskAgent") != std::string::npos) return true;
        return false;
      },
      std::chrono::seconds(30)))
      << server_->log();
  server_->kill9();

  start_serve();  // no --session: the session its last process left running
  ASSERT_FALSE(HasFatalFailure());
  // The task ran in a session the server opened for the client's new
  // context; the restarted server reopens that session and resumes it.
  std::optional<store::TaskRow> task;
  std::string main_session;
  ASSERT_TRUE(wait_for(
      [&] {
        auto j = store::JournalStore::open_read_only(db());
        if (!j.ok()) return false;
        auto sessions = (*j)->list_sessions();
        auto main = (*j)->latest_session();
        if (!sessions.ok() || sessions->size() != 2 || !main.ok() || !main->has_value()) return false;
        main_session = (**main).id;
        auto t = (*j)->get_task(a2a_task);
        if (!t.ok() || !t->has_value() || (**t).status == "running" || (**t).status == "interrupted") return false;
        task = **t;
        return true;
      },
      std::chrono::seconds(60)))
      << server_->log();
  EXPECT_EQ(task->status, "done") << task->error;
  EXPECT_EQ(task->final_answer, "助手はこんにちはと言いました 👋");
  EXPECT_NE(task->session_id, main_session);
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);         // never asked again
  EXPECT_EQ(requests_for("gemini-2.0-flash").size(), 2u);  // in flight at the kill
  EXPECT_NE(server_->log().find(main_session), std::string::npos) << server_->log();
  // The client comes back to the restarted server for its task, by the id it was given.
  auto got = request("POST", "/a2a",
                     json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "GetTask"}, {"params", {{"id", a2a_task}}}}.dump(),
                     {{"A2A-Version", "1.0"}});
  ASSERT_EQ(got.status, 200) << got.body << server_->log();
  json t = json::parse(got.body)["result"];
  EXPECT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED") << got.body;
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "助手はこんにちはと言いました 👋") << got.body;
  EXPECT_EQ(t.value("contextId", ""), context) << got.body;
}

// An ACP run's id outlives `kaisha serve`: killed (SIGKILL) while an async
// run's task waits for the model, the server is started again on the same
// journal. GET /runs/{id} answers the run that had completed with its
// output, and the interrupted one — resumed by the restarted server — goes
// on to complete with the answer an uninterrupted run gives; its events end
// with run.completed. Killed again after both ended, the next server (a new
// session) still answers both.
TEST_F(ServeTest, AcpRunIdsOutliveAKilledServer) {
  start_mock(kQuickAndSlowScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto start_run = [&](const std::string& mode, const std::string& text) {
    auto r = request(
        "POST", "/acp/runs",
        json{
            {"agent_name", "kaisha"}, {"mode", mode}, {"input", {{{"role", "user"}, {"parts", {{{"content", text}}}}}}}}
            .dump());
    EXPECT_EQ(r.status, mode == "sync" ? 200 : 202) << r.body << server_->log();
    return json::parse(r.body, nullptr, false);
  };
  auto get_run = [&](const std::string& id) {
    auto r = request("GET", "/acp/runs/" + id, "");
    EXPECT_EQ(r.status, 200) << r.body << server_->log();
    return json::parse(r.body, nullptr, false);
  };
  const json quick = start_run("sync", "a quick one");
  ASSERT_EQ(quick.value("status", ""), "completed") << quick.dump();
  const json slow = start_run("async", "a slow one");
  const std::string slow_id = slow.value("run_id", "");
  ASSERT_FALSE(slow_id.empty()) << slow.dump();
  ASSERT_TRUE(wait_for([&] { return requests_for("ceo-model").size() == 2; }, std::chrono::seconds(30)))
      << server_->log();
  server_->kill9();

  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  json got = get_run(quick["run_id"]);
  EXPECT_EQ(got["status"], "completed") << got.dump();
  EXPECT_EQ(got["output"][0]["parts"], quick["output"][0]["parts"]) << got.dump();
  EXPECT_EQ(got["created_at"], quick["created_at"]);
  json done;
  ASSERT_TRUE(wait_for(
      [&] {
        done = get_run(slow_id);
        return done.value("status", "") == "completed" || done.value("status", "") == "failed";
      },
      std::chrono::seconds(60)))
      << done.dump() << server_->log();
  EXPECT_EQ(done["status"], "completed") << done.dump();
  EXPECT_EQ(done["output"][0]["parts"][0]["content"], "遅い答え: 42") << done.dump();
  EXPECT_EQ(done["created_at"], slow["created_at"]);
  EXPECT_EQ(done["session_id"], nullptr);
  json events = json::parse(request("GET", "/acp/runs/" + slow_id + "/events", "").body);
  ASSERT_FALSE(events["events"].empty()) << events.dump();
  EXPECT_EQ(events["events"].back()["type"], "run.completed") << events.dump();
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);  // the call in flight at the kill, once more
  // An ended run stays ended.
  EXPECT_EQ(request("POST", "/acp/runs/" + slow_id + "/cancel", "").status, 403);

  server_->kill9();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(get_run(quick["run_id"])["output"][0]["parts"], quick["output"][0]["parts"]);
  EXPECT_EQ(get_run(slow_id)["output"][0]["parts"], done["output"][0]["parts"]);
}

// A task is in the journal before its id is given out, even while it waits
// its turn: killed (SIGKILL) with one run's model call in flight and two
// more runs queued behind it in the same session, one of them canceled,
// the restarted server runs the first again (its call was in flight), runs
// the waiting one for the first time, and never runs the canceled one.
TEST_F(ServeTest, QueuedRunsOutliveAKilledServerAndACanceledOneStaysCanceled) {
  start_mock(kQuickAndSlowScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto start_async = [&](const std::string& text) {
    auto r = request("POST", "/acp/runs",
                     json{{"agent_name", "kaisha"},
                          {"mode", "async"},
                          {"input", {{{"role", "user"}, {"parts", {{{"content", text}}}}}}}}
                         .dump());
    EXPECT_EQ(r.status, 202) << r.body << server_->log();
    return json::parse(r.body, nullptr, false).value("run_id", "");
  };
  auto status_of = [&](const std::string& id) {
    auto r = request("GET", "/acp/runs/" + id, "");
    EXPECT_EQ(r.status, 200) << r.body << server_->log();
    return json::parse(r.body, nullptr, false);
  };
  const std::string first = start_async("a slow one");
  ASSERT_TRUE(wait_for([&] { return requests_for("ceo-model").size() == 1; }, std::chrono::seconds(30)))
      << server_->log();
  const std::string waiting = start_async("another slow one");
  const std::string canceled = start_async("a slow one nobody wants");
  ASSERT_FALSE(first.empty() || waiting.empty() || canceled.empty());
  EXPECT_EQ(status_of(waiting)["status"], "created");
  EXPECT_EQ(request("POST", "/acp/runs/" + canceled + "/cancel", "").status, 202) << server_->log();
  ASSERT_TRUE(
      wait_for([&] { return status_of(canceled).value("status", "") == "cancelled"; }, std::chrono::seconds(30)));
  server_->kill9();

  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  for (const std::string& id : {first, waiting}) {
    json done;
    ASSERT_TRUE(wait_for(
        [&] {
          done = status_of(id);
          const std::string st = done.value("status", "");
          return st == "completed" || st == "failed" || st == "cancelled";
        },
        std::chrono::seconds(60)))
        << done.dump() << server_->log();
    EXPECT_EQ(done["status"], "completed") << done.dump();
    EXPECT_EQ(done["output"][0]["parts"][0]["content"], "遅い答え: 42") << done.dump();
  }
  EXPECT_EQ(status_of(canceled)["status"], "cancelled");
  // The first run's call twice (in flight at the kill), the waiting one's once, the canceled one's never.
  EXPECT_EQ(requests_for("ceo-model").size(), 3u) << server_->log();
}

// Run ids that were never given out get ACP's 404 with a clear message, and
// hostile ones never take the server down: a UUID nobody was given, a
// company task id, 4 KB and 10 KB ids, bytes that are not UTF-8.
TEST_F(ServeTest, UnknownAndHostileAcpRunIdsGetClearErrors) {
  start_mock(kServeScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  auto not_found = [&](const std::string& id, const std::string& says) {
    for (const std::string& path : {"/acp/runs/" + id, "/acp/runs/" + id + "/events"}) {
      auto r = request("GET", path, "");
      EXPECT_EQ(r.status, 404) << path.substr(0, 80) << ": " << r.body.substr(0, 300);
      json b = json::parse(r.body, nullptr, false);
      EXPECT_EQ(b.value("code", ""), "not_found") << r.body.substr(0, 300);
      EXPECT_NE(b.value("message", "").find(says), std::string::npos) << r.body.substr(0, 300);
      EXPECT_LT(r.body.size(), 1000u);
    }
    EXPECT_EQ(request("POST", "/acp/runs/" + id + "/cancel", "").status, 404);
  };
  not_found("0b7c5a52-6f0e-4a38-9d47-3c1c2f5e8a10", "never gave out that id");
  // The A2A side's id for a task (a company task id) is no ACP run id.
  json message{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "Answer via ACP"}}})}};
  auto sent = a2a_send(message);
  ASSERT_EQ(sent.status, 200) << sent.body;
  not_found(json::parse(sent.body)["result"]["task"].value("id", ""), "run ids are UUIDs");
  not_found(std::string(4 * 1024, 'a'), "run ids are UUIDs");
  not_found("%FF%FE", "run ids are UUIDs");
  auto huge = request("GET", "/acp/runs/" + std::string(10 * 1024, 'a'), "");
  EXPECT_EQ(huge.status, 414) << huge.body.substr(0, 300);
  EXPECT_EQ(request("GET", "/acp/ping", "").status, 200) << server_->log();
}

// A ~200 KB body nested 100,000 deep once crashed `kaisha serve` (SIGSEGV
// in a recursive copy of the ACP input). Every protocol refuses it with a
// clear error from the one bounded parser, and the server keeps answering.
TEST_F(ServeTest, DeeplyNestedBodiesAreRefusedOnEveryProtocolAndTheServerStaysUp) {
  start_mock(kServeScript);
  cfg_ = write_config();
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');

  auto acp = request("POST", "/acp/runs", R"({"agent_name":"kaisha","mode":"sync","input":)" + deep + "}");
  EXPECT_EQ(acp.status, 400) << acp.body << server_->log();
  EXPECT_NE(acp.body.find("nesting deeper than 128 levels"), std::string::npos) << acp.body;

  auto a2a =
      request("POST", "/a2a", R"({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":)" + deep + "}}",
              {{"A2A-Version", "1.0"}});
  EXPECT_EQ(a2a.status, 200) << server_->log();
  EXPECT_EQ(json::parse(a2a.body)["error"]["code"], -32600) << a2a.body;

  auto mcp = request("POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)" + deep + "}",
                     {{"Accept", "application/json, text/event-stream"}});
  EXPECT_EQ(mcp.status, 400) << server_->log();
  EXPECT_EQ(json::parse(mcp.body)["error"]["code"], -32600) << mcp.body;

  EXPECT_EQ(request("GET", "/acp/ping", "").status, 200) << server_->log();
}

}  // namespace
}  // namespace kaisha::e2e
