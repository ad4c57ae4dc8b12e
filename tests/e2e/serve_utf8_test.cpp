// Text is UTF-8 on every answer `kaisha serve` gives, whatever the models
// say: the CEO hires a worker and both answer in Japanese with emoji,
// ill-formed bytes (the mock's {{bytes:...}} marker) and a last character
// cut in half, at lengths where every shortened progress text has to cut
// inside a character; every task sent ends in half a character too. Each
// protocol's answer — A2A SendMessage and
// SendStreamingMessage (SSE), ACP sync and stream (SSE), MCP tools/call
// plain and with progress (SSE) — must be valid UTF-8 and valid JSON, carry
// the text with U+FFFD in place of the bad bytes, and leave the server
// serving the next request.
#include "runtime/core/utf8.hpp"
#include "tests/e2e/serve_fixture.hpp"

namespace kaisha::e2e {
namespace {

// A cut 日, a stray byte, a surrogate, an overlong '/': each becomes U+FFFD.
const std::string kServeBadBytes = "{{bytes:E6 97 FF ED A0 80 C0 AF}}";
// A text that ends in the middle of its last character (日 without its last byte).
const std::string kCutEnd = "{{bytes:E6 97}}";
const std::string kServeFffd = "\xEF\xBF\xBD";
// Stands in a request for half a character (日 without its last byte): the
// body is written by dump(), which refuses ill-formed text, then the marker
// is swapped for the raw bytes.
const std::string kCutMarker = "@CUT@";

std::string body_with_cut(const json& j) {
  std::string s = j.dump();
  for (size_t at; (at = s.find(kCutMarker)) != std::string::npos;) s.replace(at, kCutMarker.size(), "\xE6\x97");
  return s;
}

// About 600 bytes of Japanese: longer than the 500 bytes MCP progress keeps.
std::string long_japanese() {
  std::string s;
  for (int i = 0; i < 12; ++i) s += "価格比較の結果、プロバイダーBが最安。";  // 51 bytes each
  return s;
}

std::string script() {
  return R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, last_role: user }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Chosain, base_model: llama3.2, system_prompt: "あなたは調査員です。", description: "調べる 🔍" } }
  - name: ceo-asks
    match: { model: ceo-model, last_role: tool, last_tool_name: AgentCreator }
    reply:
      tool_calls:
        - { name: AskAgent, arguments: { agent_name: Chosain, prompt: "{{last_user}} を調べてください 🙏" } }
  - name: ceo-answers
    match: { model: ceo-model, last_role: tool, last_tool_name: AskAgent }
    reply: { text: "最終回答 🎉: {{last_tool}} )" +
         kServeBadBytes + " " + long_japanese() + kCutEnd + R"(" }
  - name: worker-answers
    match: { model: llama3.2 }
    reply: { text: ")" +
         long_japanese() + " 😀 壊れた文字: " + kServeBadBytes + " 以上" + kCutEnd + R"(" }
)";
}

// `text` is valid UTF-8; names the first bad line when it is not.
::testing::AssertionResult all_served_utf8(const std::string& what, const std::string& text) {
  if (utf8::valid(text)) return ::testing::AssertionSuccess();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!utf8::valid(line)) return ::testing::AssertionFailure() << what << " has invalid UTF-8 in: " << line;
  return ::testing::AssertionFailure() << what << " is not valid UTF-8";
}

// Every "data:" of an SSE body is one JSON value.
::testing::AssertionResult json_events(const std::string& what, const std::string& body) {
  llm::SseParser p;
  std::string bad;
  int n = 0;
  p.feed(body, [&](const llm::SseEvent& e) {
    ++n;
    if (bad.empty() && json::parse(e.data, nullptr, false).is_discarded()) bad = e.data;
  });
  if (!bad.empty()) return ::testing::AssertionFailure() << what << ": an event is not JSON: " << bad;
  if (n == 0) return ::testing::AssertionFailure() << what << ": no events in " << body;
  return ::testing::AssertionSuccess();
}

// The text of the final answer has the Japanese, the emoji and U+FFFD.
::testing::AssertionResult carries_answer(const std::string& what, const std::string& text) {
  for (const std::string& piece : {std::string("最終回答 🎉"), std::string("プロバイダーBが最安"), kServeFffd})
    if (text.find(piece) == std::string::npos)
      return ::testing::AssertionFailure() << what << " lacks \"" << piece << "\": " << text;
  return ::testing::AssertionSuccess();
}

class ServeUtf8Test : public ServeTest {
 protected:
  static json a2a_message(const std::string& text) {
    return json{
        {"messageId", "m-" + text.substr(0, 3)}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", text}}})}};
  }
  http::HttpResult a2a(const std::string& method, const json& params, int id) {
    return request("POST", "/a2a",
                   body_with_cut(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}),
                   {{"A2A-Version", "1.0"}});
  }
};

TEST_F(ServeUtf8Test, EveryProtocolAnswersValidUtf8AndTheServerKeepsServing) {
  start_mock(script());
  ConfigOptions o;
  o.resource_total = 1000;  // room for every ask whatever the hold per ask
  cfg_ = write_config(o);
  start_serve();
  ASSERT_FALSE(HasFatalFailure());
  // The task text itself ends in half a character.
  const std::string cut_task = "クラウド各社のGPU価格 " + kCutMarker;

  // A2A SendMessage (blocking).
  auto sent = a2a("SendMessage", {{"message", a2a_message("A2A 価格を比較 " + cut_task)}}, 1);
  ASSERT_EQ(sent.status, 200) << server_->log();
  EXPECT_TRUE(all_served_utf8("A2A SendMessage", sent.body));
  json task = json::parse(sent.body, nullptr, false);
  ASSERT_FALSE(task.is_discarded()) << sent.body;
  EXPECT_EQ(task["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED") << sent.body;
  EXPECT_TRUE(carries_answer("A2A artifact", task["result"]["task"]["artifacts"][0]["parts"][0].value("text", "")));

  // A2A SendStreamingMessage: the task, status updates (progress texts), the artifact.
  auto streamed = a2a("SendStreamingMessage", {{"message", a2a_message("A2A stream 比較 " + cut_task)}}, 2);
  ASSERT_EQ(streamed.status, 200) << server_->log();
  EXPECT_TRUE(all_served_utf8("A2A SendStreamingMessage", streamed.body));
  EXPECT_TRUE(json_events("A2A SendStreamingMessage", streamed.body));
  std::vector<json> events = sse_events(streamed.body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED") << streamed.body;
  std::string artifact;
  for (const auto& e : events)
    if (e["result"].contains("artifactUpdate"))
      artifact += e["result"]["artifactUpdate"]["artifact"]["parts"][0].value("text", "");
  EXPECT_TRUE(carries_answer("A2A streamed artifact", artifact));

  // ACP, sync then stream.
  auto acp_body = [&](const std::string& mode, const std::string& text) {
    return body_with_cut(json{
        {"agent_name", "kaisha"}, {"mode", mode}, {"input", {{{"role", "user"}, {"parts", {{{"content", text}}}}}}}});
  };
  auto run = request("POST", "/acp/runs", acp_body("sync", "ACP 調査 " + cut_task));
  ASSERT_EQ(run.status, 200) << run.body << server_->log();
  EXPECT_TRUE(all_served_utf8("ACP sync run", run.body));
  json r = json::parse(run.body, nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << run.body;
  EXPECT_EQ(r["status"], "completed") << run.body;
  EXPECT_TRUE(carries_answer("ACP output", r["output"][0]["parts"][0].value("content", "")));

  auto acp_stream = request("POST", "/acp/runs", acp_body("stream", "ACP stream 調査 " + cut_task));
  ASSERT_EQ(acp_stream.status, 200) << server_->log();
  EXPECT_TRUE(all_served_utf8("ACP stream run", acp_stream.body));
  EXPECT_TRUE(json_events("ACP stream run", acp_stream.body));
  std::vector<json> acp_events = sse_events(acp_stream.body);
  ASSERT_FALSE(acp_events.empty());
  EXPECT_EQ(acp_events.back()["type"], "run.completed") << acp_stream.body;

  // MCP: tools/call run_task with progress (SSE), then without (one JSON body).
  const auto session = open_mcp_session();
  ASSERT_FALSE(session.empty());
  for (const bool progress : {true, false}) {
    const std::string what = progress ? "MCP tools/call with progress" : "MCP tools/call";
    json params{{"name", "run_task"}, {"arguments", {{"task", "MCP まとめ " + cut_task}}}};
    if (progress) params["_meta"] = {{"progressToken", "p1"}};
    auto call = request(
        "POST", "/mcp",
        body_with_cut(json{{"jsonrpc", "2.0"}, {"id", progress ? 2 : 3}, {"method", "tools/call"}, {"params", params}}),
        session);
    ASSERT_EQ(call.status, 200) << what << ": " << call.body << server_->log();
    EXPECT_TRUE(all_served_utf8(what, call.body));
    json result;
    if (call.header("content-type").rfind("text/event-stream", 0) == 0) {
      EXPECT_TRUE(json_events(what, call.body));
      std::vector<json> mcp_events = sse_events(call.body);
      ASSERT_FALSE(mcp_events.empty()) << call.body;
      int notes = 0;
      for (const auto& e : mcp_events) notes += e.value("method", "") == "notifications/progress";
      if (progress) {
        EXPECT_GE(notes, 1) << call.body;
      }
      result = mcp_events.back();
    } else {
      result = json::parse(call.body, nullptr, false);
      ASSERT_FALSE(result.is_discarded()) << call.body;
    }
    EXPECT_FALSE(result["result"].value("isError", false)) << result.dump();
    EXPECT_TRUE(carries_answer(what, result["result"]["content"][0].value("text", "")));
  }

  // Still serving: every protocol answers the next request.
  EXPECT_EQ(request("GET", "/acp/ping", "").status, 200) << server_->log();
  auto again = a2a("SendMessage", {{"message", a2a_message("A2A もう一度")}}, 4);
  ASSERT_EQ(again.status, 200) << server_->log();
  EXPECT_EQ(json::parse(again.body)["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED") << again.body;
  EXPECT_TRUE(all_served_utf8("the log of kaisha serve", server_->log()));
  EXPECT_EQ(stop_and_wait_exit(), 0) << server_->log();  // its MCP session's company stops too

  // What was journaled reads back as valid UTF-8 too.
  RunResult history = kaisha({"history", "--config", cfg_, "--db", db(), "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  EXPECT_TRUE(all_served_utf8("kaisha history --json", history.out));
  json h = json::parse(history.out, nullptr, false);
  ASSERT_FALSE(h.is_discarded());
  EXPECT_EQ(h["tasks"].size(), 7u) << history.out;
  for (const auto& t : h["tasks"]) EXPECT_EQ(t["status"], "done") << t.dump();
}

}  // namespace
}  // namespace kaisha::e2e
