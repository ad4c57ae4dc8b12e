// `kaisha serve --http 127.0.0.1:0` as a child process over the scripted
// mock LLM, and plain HTTP requests to it: the fixture of the end-to-end
// tests that drive MCP, A2A and ACP on the real company.
#pragma once

#include "runtime/http/fetch_blocking.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e {

// A quick task and one whose model call takes 3 s: the second is still
// running when a test kills the server.
inline constexpr const char* kQuickAndSlowScript = R"(
rules:
  - match: { model: ceo-model, last_user: "quick" }
    reply: { text: "速い答え: 7" }
  - match: { model: ceo-model, last_user: "slow" }
    reply: { text: "遅い答え: 42", latency_ms: 3000 }
)";

class ServeTest : public E2eTest {
 protected:
  void TearDown() override {
    server_.reset();
    E2eTest::TearDown();
  }

  // Starts `kaisha serve --http 127.0.0.1:0` on cfg_ and reads its URL from the log.
  void start_serve() {
    std::map<std::string, std::optional<std::string>> env;
    for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "KAISHA_HTTP_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY"})
      env[k] = std::nullopt;
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
    server_ = std::make_unique<BackgroundProcess>(
        KAISHA_EXE, std::vector<std::string>{"serve", "--http", "127.0.0.1:0", "--config", cfg_, "--db", db()}, env,
        dir_.file("serve-" + std::to_string(++starts_) + ".log"));  // a restart reads its own URL
    const std::string marker = "kaisha serve: MCP at ";
    ASSERT_TRUE(wait_for([&] { return server_->log().find(marker) != std::string::npos; }, std::chrono::seconds(30)))
        << server_->log();
    const std::string log = server_->log();
    const size_t at = log.find(marker) + marker.size();
    const std::string mcp_url = log.substr(at, log.find('\n', at) - at);
    base_ = mcp_url.substr(0, mcp_url.size() - std::string("/mcp").size());
  }

  http::HttpResult request(const std::string& method, const std::string& path, const std::string& body,
                           std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::HttpRequestSpec req;
    req.method = method;
    req.url = base_ + path;
    if (!body.empty()) headers.push_back({"Content-Type", "application/json"});
    req.headers = std::move(headers);
    req.body = body;
    http::HttpOptions o;
    o.timeout_ms = 60000;
    return http::fetch_blocking(req, o);
  }

  // A2A 1.0 SendMessage of `message` over JSON-RPC (blocking).
  http::HttpResult a2a_send(const json& message, int id = 1) {
    return request(
        "POST", "/a2a",
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "SendMessage"}, {"params", {{"message", message}}}}.dump(),
        {{"A2A-Version", "1.0"}});
  }

  // A2A 1.0 SendMessage of a user text that returns at once: the task's id
  // ("" when it was not accepted).
  std::string a2a_start(const std::string& text, int id = 1) {
    json message{
        {"messageId", "m" + std::to_string(id)}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", text}}})}};
    auto sent = request("POST", "/a2a",
                        json{{"jsonrpc", "2.0"},
                             {"id", id},
                             {"method", "SendMessage"},
                             {"params", {{"message", message}, {"configuration", {{"returnImmediately", true}}}}}}
                            .dump(),
                        {{"A2A-Version", "1.0"}});
    EXPECT_EQ(sent.status, 200) << sent.body;
    const json r = json::parse(sent.body, nullptr, false);
    return r.is_object() && r.contains("result") ? r["result"]["task"].value("id", "") : "";
  }
  // A2A 1.0 `method` (GetTask, CancelTask) on task `task`: the JSON-RPC answer.
  json a2a_task_call(const std::string& method, const std::string& task, int id = 2) {
    auto r = request("POST", "/a2a",
                     json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", {{"id", task}}}}.dump(),
                     {{"A2A-Version", "1.0"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
  }

  // An ACP async run of a user text: its run id ("" when refused).
  std::string acp_start_async(const std::string& text) {
    auto r = request("POST", "/acp/runs",
                     json{{"agent_name", "kaisha"},
                          {"mode", "async"},
                          {"input", {{{"role", "user"}, {"parts", {{{"content", text}}}}}}}}
                         .dump());
    EXPECT_EQ(r.status, 202) << r.body;
    return json::parse(r.body, nullptr, false).value("run_id", "");
  }
  // GET /acp/runs/{id}'s run (null when it is not answered).
  json acp_run(const std::string& id) {
    auto r = request("GET", "/acp/runs/" + id, "");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
  }

  // initialize + notifications/initialized over /mcp, accepting SSE; returns
  // the headers of the session's later requests (empty when initialize failed).
  std::vector<std::pair<std::string, std::string>> open_mcp_session() {
    std::vector<std::pair<std::string, std::string>> headers = {{"Accept", "application/json, text/event-stream"}};
    auto init = request("POST", "/mcp",
                        json{{"jsonrpc", "2.0"},
                             {"id", 1},
                             {"method", "initialize"},
                             {"params",
                              {{"protocolVersion", "2025-11-25"},
                               {"capabilities", json::object()},
                               {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}}}
                            .dump(),
                        headers);
    const std::string sid = init.header("mcp-session-id");
    EXPECT_EQ(init.status, 200) << init.body;
    EXPECT_FALSE(sid.empty());
    if (init.status != 200 || sid.empty()) return {};
    headers.push_back({"Mcp-Session-Id", sid});
    headers.push_back({"MCP-Protocol-Version", "2025-11-25"});
    EXPECT_EQ(request("POST", "/mcp", json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump(), headers)
                  .status,
              202);
    return headers;
  }

  // SIGTERM: the server's exit code once it has stopped by itself, or -1 if
  // it still runs after a bound far above a clean stop's (a hang; the
  // fixture's stop() then kills it).
  int stop_and_wait_exit() {
    server_->signal(SIGTERM);
    return server_->wait_exit(std::chrono::seconds(20));
  }

  std::unique_ptr<BackgroundProcess> server_;
  std::string cfg_;
  std::string base_;
  int starts_ = 0;  // servers started by this test
};

// The CEO asks its user which city; the answer goes on with the task.
inline const char* kAskingScript = R"(
rules:
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskUser }
    reply: { text: "Forecast for {{last_tool}}" }
  - match: { model: ceo-model, last_user: "weather" }
    reply: { tool_calls: [ { name: AskUser, arguments: { question: "どの都市ですか？" } } ] }
  - match: { model: ceo-model }
    reply: { text: "answer to {{last_user}}" }
)";

// The events of an SSE body whose data is JSON (others skipped).
inline std::vector<json> sse_events(const std::string& body) {
  std::vector<json> out;
  llm::SseParser p;
  p.feed(body, [&](const llm::SseEvent& e) {
    json j = json::parse(e.data, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  });
  return out;
}

}  // namespace kaisha::e2e
