// EditorAgent's session logic over a fake company: the order of answers and
// updates, cancel, refusal on a spent budget, permission requests, load.
#include "protocols/agent_client/editor_agent.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>

namespace kaisha::agent_client {
namespace {

// What the agent sent, in order; waits for a message that matches.
class Wire {
 public:
  void send(const json& m) {
    std::lock_guard<std::mutex> lock(mu_);
    sent_.push_back(m);
    cv_.notify_all();
  }
  // The first message from index `from` on for which `match` holds (waits up to 20 s).
  json wait_for(std::function<bool(const json&)> match, size_t from = 0) {
    std::unique_lock<std::mutex> lock(mu_);
    json found;
    cv_.wait_for(lock, std::chrono::seconds(20), [&] {
      for (size_t i = from; i < sent_.size(); ++i)
        if (match(sent_[i])) return found = sent_[i], true;
      return false;
    });
    return found;
  }
  json response(const json& id) {
    return wait_for([id](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); });
  }
  std::vector<json> all() {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }
  size_t index_of(const json& m) {
    auto v = all();
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == m) return i;
    return v.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<json> sent_;
};

class FakeCompany : public EditorCompany {
 public:
  std::function<msg::TaskResult(const std::string&, const std::string&, const std::string&)> on_run;
  json ledgers = json{{"current_remaining_expense_budget", 5.0}, {"total_expense_budget", 5.0}};
  std::vector<PastTurn> past;
  std::string raised;
  std::mutex mu;
  std::set<std::string> cancelled;
  std::condition_variable cancel_cv;
  int opened = 0;

  Result<std::string> open(const std::string& id, const SessionParams&) override {
    if (!id.empty() && id != "known") return Error{"not_found", "no session '" + id + "'"};
    ++opened;
    return id.empty() ? "sess-" + std::to_string(opened) : id;
  }
  msg::TaskResult run(const std::string& s, const std::string& input, const std::string& task) override {
    return on_run(s, input, task);
  }
  bool cancel(const std::string&, const std::string& task) override {
    std::lock_guard<std::mutex> lock(mu);
    cancelled.insert(task);
    cancel_cv.notify_all();
    return true;
  }
  bool wait_cancelled(const std::string& task) {
    std::unique_lock<std::mutex> lock(mu);
    return cancel_cv.wait_for(lock, std::chrono::seconds(20), [&] { return cancelled.count(task) > 0; });
  }
  json budget(const std::string&) override { return ledgers; }
  Status raise_budget(const std::string&, const std::string& which, double amount) override {
    raised = which + " " + std::to_string(static_cast<int>(amount));
    return Status::Ok();
  }
  Result<std::vector<PastTurn>> history(const std::string&) override { return past; }
  int64_t context = 0;
  int64_t context_size(const std::string&) override { return context; }
};

class EditorAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent = EditorAgent::create([this](const json& m) { wire.send(m); }, "9.9");
    agent->attach(&company);
  }
  void TearDown() override { agent->shutdown(); }

  void line(const json& m) { agent->handle_line(m.dump()); }
  json call(int id, const std::string& method, json params) {
    line(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return wire.response(id);
  }
  void initialize(bool fs = false) {
    json caps = json{{"fs", {{"readTextFile", fs}, {"writeTextFile", fs}}}};
    ASSERT_EQ(
        call(0, "initialize", {{"protocolVersion", 1}, {"clientCapabilities", caps}})["result"]["protocolVersion"], 1);
  }
  std::string new_session() {
    json r = call(1, "session/new", {{"cwd", "/w"}, {"mcpServers", json::array()}});
    return r["result"]["sessionId"];
  }
  json prompt_line(int id, const std::string& session, const std::string& text) {
    return json{
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", "session/prompt"},
        {"params", {{"sessionId", session}, {"prompt", json::array({json{{"type", "text"}, {"text", text}}})}}}};
  }

  Wire wire;
  FakeCompany company;
  std::shared_ptr<EditorAgent> agent;
};

TEST_F(EditorAgentTest, RequestsBeforeInitializeAndUnknownMethodsGetErrors) {
  json r = call(5, "session/new", {{"cwd", "/w"}, {"mcpServers", json::array()}});
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("initialize"), std::string::npos);
  initialize();
  r = call(6, "session/fly", json::object());
  EXPECT_EQ(r["error"]["code"], -32601);
  line(json{{"jsonrpc", "2.0"}, {"method", "unknown/notification"}});
  agent->handle_line("{{{ garbage");
  json parse = wire.wait_for([](const json& m) { return m.contains("error") && m["error"]["code"] == -32700; });
  EXPECT_TRUE(parse["id"].is_null());
  r = call(7, "session/prompt",
           {{"sessionId", "nope"}, {"prompt", json::array({json{{"type", "text"}, {"text", "x"}}})}});
  EXPECT_EQ(r["error"]["code"], -32002);
  r = call(8, "session/load", {{"sessionId", "missing"}, {"cwd", "/w"}, {"mcpServers", json::array()}});
  EXPECT_EQ(r["error"]["code"], -32002);
  r = call(9, "session/new", {{"cwd", "relative"}, {"mcpServers", json::array()}});
  EXPECT_EQ(r["error"]["code"], -32602);
}

TEST_F(EditorAgentTest, APromptStreamsItsUpdatesThenTheAnswerThenTheStopReason) {
  initialize();
  const std::string s = new_session();
  EXPECT_EQ(s, "sess-1");
  wire.wait_for([](const json& m) {
    return m.value("method", "") == "session/update" &&
           m["params"]["update"]["sessionUpdate"] == "available_commands_update";
  });
  company.on_run = [this](const std::string& session, const std::string& input, const std::string& task) {
    msg::ProgressEvent e;
    e.session_id = session;
    e.task_id = task;
    e.kind = msg::EventKind::tool_call;
    e.agent = "CEO";
    e.data = json{{"tool", "ReadFile"}, {"arguments", "{}"}, {"call_id", "c"}};
    agent->on_event(e);
    msg::TaskResult r;
    r.answer = "answer to " + input;
    return r;
  };
  line(prompt_line(2, s, "hello"));
  json r = wire.response(2);
  EXPECT_EQ(r["result"]["stopReason"], "end_turn");
  json tool = wire.wait_for([](const json& m) {
    return m.value("method", "") == "session/update" && m["params"]["update"]["sessionUpdate"] == "tool_call";
  });
  json chunk = wire.wait_for([](const json& m) {
    return m.value("method", "") == "session/update" && m["params"]["update"]["sessionUpdate"] == "agent_message_chunk";
  });
  EXPECT_EQ(chunk["params"]["update"]["content"]["text"], "answer to hello");
  EXPECT_LT(wire.index_of(tool), wire.index_of(chunk));
  EXPECT_LT(wire.index_of(chunk), wire.index_of(r));
}

TEST_F(EditorAgentTest, CancelEndsTheTurnWithCancelled) {
  initialize();
  const std::string s = new_session();
  company.on_run = [this](const std::string&, const std::string&, const std::string& task) {
    company.wait_cancelled(task);
    msg::TaskResult r;
    r.ok = false;
    r.canceled = true;
    r.error = "cancelled by the editor";
    return r;
  };
  line(prompt_line(2, s, "long work"));
  json busy = call(3, "session/prompt", prompt_line(3, s, "another")["params"]);
  EXPECT_EQ(busy["error"]["code"], -32600);
  line(json{{"jsonrpc", "2.0"}, {"method", "session/cancel"}, {"params", {{"sessionId", s}}}});
  EXPECT_EQ(wire.response(2)["result"]["stopReason"], "cancelled");
}

TEST_F(EditorAgentTest, ASpentBudgetIsARefusalAndRaiseIsACommand) {
  initialize();
  const std::string s = new_session();
  bool ran = false;
  company.on_run = [&](const std::string&, const std::string&, const std::string&) {
    ran = true;
    return msg::TaskResult{};
  };
  company.ledgers["current_remaining_expense_budget"] = 0.0;
  line(prompt_line(2, s, "spend more"));
  EXPECT_EQ(wire.response(2)["result"]["stopReason"], "refusal");
  EXPECT_FALSE(ran);
  line(prompt_line(3, s, "/raise expense 10"));
  EXPECT_EQ(wire.response(3)["result"]["stopReason"], "end_turn");
  EXPECT_EQ(company.raised, "expense 10");
}

TEST_F(EditorAgentTest, PermissionRequestsAreAnsweredAndWithdrawnOnShutdown) {
  initialize(/*fs=*/true);
  const std::string s = new_session();
  EXPECT_TRUE(agent->client_writes(s));
  EXPECT_EQ(agent->cwd(s), "/w");
  std::promise<std::pair<bool, bool>> answers;  // allowed, then denied
  std::promise<bool> at_shutdown;
  company.on_run = [&](const std::string& session, const std::string&, const std::string& task) {
    company::ToolCallContext ctx{session, task, "CEO", "", ""};
    std::promise<bool> first, second;
    agent->ask_permission(ctx, "WriteFile", json{{"file_path", "a"}},
                          [&](bool ok, std::string) { first.set_value(ok); });
    bool a = first.get_future().get();
    agent->ask_permission(ctx, "PythonSandboxTool", json{{"code", "1"}},
                          [&](bool ok, std::string) { second.set_value(ok); });
    bool b = second.get_future().get();
    answers.set_value({a, b});
    agent->ask_permission(ctx, "WriteFile", json{{"file_path", "b"}},
                          [&](bool ok, std::string) { at_shutdown.set_value(ok); });
    company.wait_cancelled(task);
    msg::TaskResult r;
    r.ok = false;
    r.canceled = true;
    return r;
  };
  line(prompt_line(2, s, "write"));
  auto is_permission = [](const json& m) { return m.value("method", "") == "session/request_permission"; };
  json ask = wire.wait_for(is_permission);
  ASSERT_TRUE(ask.is_object());
  EXPECT_EQ(ask["params"]["toolCall"]["kind"], "edit");
  line(json{{"jsonrpc", "2.0"},
            {"id", ask["id"]},
            {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", "allow"}}}}}});
  json ask2 = wire.wait_for([&](const json& m) { return is_permission(m) && m["id"] != ask["id"]; });
  EXPECT_EQ(ask2["params"]["toolCall"]["kind"], "execute");
  line(json{{"jsonrpc", "2.0"},
            {"id", ask2["id"]},
            {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", "reject"}}}}}});
  auto got = answers.get_future().get();
  EXPECT_TRUE(got.first);
  EXPECT_FALSE(got.second);
  wire.wait_for([&](const json& m) { return is_permission(m) && m["id"] != ask["id"] && m["id"] != ask2["id"]; });
  agent->shutdown();  // the editor went away mid-turn
  EXPECT_FALSE(at_shutdown.get_future().get());
}

TEST_F(EditorAgentTest, AlwaysAllowLetsTheToolRunAgainWithoutAskingForTheRestOfTheSession) {
  initialize();
  const std::string s = new_session();
  std::promise<std::vector<bool>> answers;
  company.on_run = [&](const std::string& session, const std::string&, const std::string& task) {
    company::ToolCallContext ctx{session, task, "CEO", "", ""};
    std::vector<bool> got;
    for (int i = 0; i < 2; ++i) {
      std::promise<bool> p;
      agent->ask_permission(ctx, "execute_code", json{{"code", "1"}}, [&](bool ok, std::string) { p.set_value(ok); });
      got.push_back(p.get_future().get());
    }
    answers.set_value(got);
    msg::TaskResult r;
    r.ok = true;
    r.answer = "done";
    return r;
  };
  line(prompt_line(2, s, "run it twice"));
  auto is_permission = [](const json& m) { return m.value("method", "") == "session/request_permission"; };
  json ask = wire.wait_for(is_permission);
  ASSERT_TRUE(ask.is_object());
  std::vector<std::string> kinds;
  for (const auto& o : ask["params"]["options"]) kinds.push_back(o["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"allow_once", "allow_always", "reject_once"}));
  EXPECT_EQ(ask["params"]["toolCall"]["kind"], "execute");
  line(json{{"jsonrpc", "2.0"},
            {"id", ask["id"]},
            {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", "allow-always"}}}}}});
  EXPECT_EQ(answers.get_future().get(), (std::vector<bool>{true, true}));
  EXPECT_EQ(wire.response(2)["result"]["stopReason"], "end_turn");
  size_t asked = 0;
  for (const auto& m : wire.all()) asked += is_permission(m);
  EXPECT_EQ(asked, 1u) << "the second run was not asked about";
}

TEST_F(EditorAgentTest, ATurnEndsWithAUsageUpdateFromTheLedger) {
  initialize();
  const std::string s = new_session();
  company.context = 32768;
  company.on_run = [&](const std::string& session, const std::string&, const std::string& task) {
    msg::ProgressEvent e;
    e.session_id = session;
    e.task_id = task;
    e.agent = "CEO";
    e.kind = msg::EventKind::usage;
    e.tokens_in = 1200;
    e.tokens_out = 34;
    e.usd = 0.25;
    agent->on_event(e);
    company.ledgers["current_expense"] = 0.5;  // what the ledger settled, the employees' calls too
    msg::TaskResult r;
    r.ok = true;
    r.answer = "done";
    return r;
  };
  company.ledgers["current_expense"] = 1.0;
  line(prompt_line(2, s, "count the cost"));
  EXPECT_EQ(wire.response(2)["result"]["stopReason"], "end_turn");
  std::vector<json> usage;
  for (const auto& m : wire.all())
    if (m.value("method", "") == "session/update" && m["params"]["update"].value("sessionUpdate", "") == "usage_update")
      usage.push_back(m["params"]["update"]);
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0]["used"], 1234);
  EXPECT_EQ(usage[0]["size"], 32768);
  EXPECT_DOUBLE_EQ(usage[0]["cost"]["amount"].get<double>(), 1.25) << "the session's expense before, and the call";
  EXPECT_EQ(usage[0]["cost"]["currency"], "USD");
  EXPECT_DOUBLE_EQ(usage[1]["cost"]["amount"].get<double>(), 0.5) << "the ledger's figure at the turn's end";
  EXPECT_EQ(usage[1]["used"], 1234);
}

TEST_F(EditorAgentTest, LoadReplaysTheJournaledTurns) {
  initialize();
  company.past = {{"first question", "first answer", "done"}, {"second", "stopped", "canceled"}};
  json r = call(4, "session/load", {{"sessionId", "known"}, {"cwd", "/w"}, {"mcpServers", json::array()}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::vector<std::string> replay;
  for (const auto& m : wire.all())
    if (m.value("method", "") == "session/update" && m["params"]["update"].contains("content"))
      replay.push_back(m["params"]["update"]["sessionUpdate"].get<std::string>() + ":" +
                       m["params"]["update"]["content"]["text"].get<std::string>());
  EXPECT_EQ(replay, (std::vector<std::string>{"user_message_chunk:first question", "agent_message_chunk:first answer",
                                              "user_message_chunk:second", "agent_message_chunk:(canceled: stopped)"}));
}

}  // namespace
}  // namespace kaisha::agent_client
