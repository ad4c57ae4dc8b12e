// McpServer without a transport: messages in, responses and related
// notifications out, over the conformance fixture and the company backend.
#include "protocols/mcp/server/mcp_server.hpp"

#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/server/company_backend.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "tests/protocols/mcp/fake_company.hpp"

namespace kaisha::mcp {
namespace {

class Harness {
 public:
  explicit Harness(McpBackend& backend)
      : server(backend), session(std::make_shared<McpSession>("sess", /*own_conversation=*/true)) {}

  // Sends one message; returns the response (null for none). Related
  // messages are collected in `related`.
  json call(const json& message) {
    std::promise<std::optional<json>> p;
    auto f = p.get_future();
    McpStream stream{[this](const json& m) {
                       std::lock_guard lock(mu);
                       related.push_back(m);
                       if (on_related) on_related(m);
                       return true;
                     },
                     nullptr, nullptr};
    server.handle_body(message.dump(), session, stream, [&p](std::optional<json> r) { p.set_value(std::move(r)); });
    auto r = f.get();
    return r ? *r : json(nullptr);
  }
  json request(const std::string& method, json params = json::object()) {
    return call(json{{"jsonrpc", "2.0"}, {"id", ++next_id}, {"method", method}, {"params", params}});
  }
  std::vector<json> take_related() {
    std::lock_guard lock(mu);
    return std::exchange(related, {});
  }

  McpServer server;
  std::shared_ptr<McpSession> session;
  std::mutex mu;
  std::vector<json> related;
  std::function<void(const json&)> on_related;
  int next_id = 0;
};

std::unique_ptr<ConformanceFixture> fixture() {
  auto f = ConformanceFixture::load();
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
  return std::move(*f);
}

TEST(McpServer, InitializeNegotiatesVersionAndDeclaresCapabilities) {
  auto fx = fixture();
  Harness h(*fx);
  json r = h.request("initialize", {{"protocolVersion", "2025-06-18"},
                                    {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_TRUE(r["result"]["capabilities"]["resources"]["subscribe"].get<bool>());
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "kaisha-conformance-fixture");
  EXPECT_TRUE(h.session->initialized());
  json unknown = h.request("initialize", {{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(unknown["result"]["protocolVersion"], "2025-11-25");
  json bad = h.request("initialize", {{"protocolVersion", 7}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  // notifications get no response
  EXPECT_TRUE(h.call(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).is_null());
  EXPECT_TRUE(h.session->ready());
}

TEST(McpServer, StandardErrorsForBadMessages) {
  auto fx = fixture();
  Harness h(*fx);
  std::promise<std::optional<json>> p;
  h.server.handle_body("{not json", h.session, McpStream{}, [&](std::optional<json> r) { p.set_value(r); });
  EXPECT_EQ((*p.get_future().get())["error"]["code"], -32700);
  EXPECT_EQ(h.call(json{{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}})["error"]["code"], -32600);
  EXPECT_EQ(h.request("no/such/method")["error"]["code"], -32601);
  EXPECT_EQ(h.request("tools/call", {{"arguments", json::object()}})["error"]["code"], -32602);
  EXPECT_EQ(h.request("ping")["result"], json::object());
}

TEST(McpServer, FixtureToolsListAndCall) {
  auto fx = fixture();
  Harness h(*fx);
  json list = h.request("tools/list");
  ASSERT_TRUE(list["result"]["tools"].is_array());
  bool found_schema_tool = false;
  for (const auto& t : list["result"]["tools"])
    if (t["name"] == "json_schema_2020_12_tool") {
      found_schema_tool = true;
      EXPECT_EQ(t["inputSchema"]["$schema"], "https://json-schema.org/draft/2020-12/schema");
      EXPECT_TRUE(t["inputSchema"].contains("$defs"));
    }
  EXPECT_TRUE(found_schema_tool);
  json r = h.request("tools/call", {{"name", "test_simple_text"}, {"arguments", json::object()}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "This is a simple text response for testing.");
  json err = h.request("tools/call", {{"name", "test_error_handling"}});
  EXPECT_TRUE(err["result"]["isError"].get<bool>());
  json unknown = h.request("tools/call", {{"name", "nope"}});
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("nope"), std::string::npos);
  // Arguments that do not fit the schema are a tool error the model can read.
  json badargs = h.request("tools/call", {{"name", "test_sampling"}, {"arguments", {{"prompt", 3}}}});
  EXPECT_TRUE(badargs["result"]["isError"].get<bool>());
  EXPECT_NE(badargs["result"]["content"][0]["text"].get<std::string>().find("prompt"), std::string::npos);
}

TEST(McpServer, ProgressAndLoggingGoToTheRequestStream) {
  auto fx = fixture();
  Harness h(*fx);
  json r = h.request("tools/call", {{"name", "test_tool_with_progress"}, {"_meta", {{"progressToken", "tok-1"}}}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "tok-1");
  auto rel = h.take_related();
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_EQ(rel[0]["method"], "notifications/progress");
  EXPECT_EQ(rel[0]["params"]["progressToken"], "tok-1");
  EXPECT_EQ(rel[2]["params"]["progress"], 100);
  EXPECT_EQ(rel[2]["params"]["total"], 100);

  h.request("tools/call", {{"name", "test_tool_with_logging"}});
  rel = h.take_related();
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_EQ(rel[0]["method"], "notifications/message");
  EXPECT_EQ(rel[0]["params"]["level"], "info");
  EXPECT_EQ(rel[0]["params"]["data"], "Tool execution started");
  // logging/setLevel above info silences them.
  EXPECT_EQ(h.request("logging/setLevel", {{"level", "error"}})["result"], json::object());
  h.request("tools/call", {{"name", "test_tool_with_logging"}});
  EXPECT_TRUE(h.take_related().empty());
  EXPECT_EQ(h.request("logging/setLevel", {{"level", "loud"}})["error"]["code"], -32602);
}

TEST(McpServer, ResourcesTemplatesAndPrompts) {
  auto fx = fixture();
  Harness h(*fx);
  EXPECT_EQ(h.request("resources/list")["result"]["resources"].size(), 3u);
  EXPECT_EQ(h.request("resources/templates/list")["result"]["resourceTemplates"][0]["uriTemplate"],
            "test://template/{id}/data");
  json text = h.request("resources/read", {{"uri", "test://static-text"}});
  EXPECT_EQ(text["result"]["contents"][0]["text"], "This is the content of the static text resource.");
  json templ = h.request("resources/read", {{"uri", "test://template/42/data"}});
  json body = json::parse(templ["result"]["contents"][0]["text"].get<std::string>());
  EXPECT_EQ(body["id"], "42");
  EXPECT_EQ(templ["result"]["contents"][0]["uri"], "test://template/42/data");
  json missing = h.request("resources/read", {{"uri", "test://nothing"}});
  EXPECT_EQ(missing["error"]["code"], -32002);
  EXPECT_EQ(missing["error"]["data"]["uri"], "test://nothing");
  EXPECT_EQ(h.request("resources/subscribe", {{"uri", "test://watched-resource"}})["result"], json::object());
  EXPECT_TRUE(h.session->subscribed("test://watched-resource"));

  json p =
      h.request("prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "a"}, {"arg2", "b"}}}});
  EXPECT_EQ(p["result"]["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'");
  json noarg = h.request("prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "a"}}}});
  EXPECT_EQ(noarg["error"]["code"], -32602);
  EXPECT_NE(noarg["error"]["message"].get<std::string>().find("arg2"), std::string::npos);
  EXPECT_EQ(h.request("prompts/get", {{"name", "nope"}})["error"]["code"], -32602);
  json c = h.request("completion/complete",
                     {{"ref", {{"type", "ref/prompt"}, {"name", "x"}}}, {"argument", {{"name", "a"}, {"value", "b"}}}});
  EXPECT_TRUE(c["result"]["completion"]["values"].is_array());
  json bad_cursor = h.request("tools/list", {{"cursor", "zz"}});
  EXPECT_EQ(bad_cursor["error"]["code"], -32602);
}

TEST(McpServer, ElicitationRoundTripThroughTheClient) {
  auto fx = fixture();
  Harness h(*fx);
  // The "client" answers the server's request when it shows up on the stream.
  h.on_related = [&h](const json& m) {
    if (m.value("method", "") != "elicitation/create") return;
    json answer{
        {"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", {{"action", "accept"}, {"content", {{"response", "yes"}}}}}};
    std::thread([&h, answer] { h.call(answer); }).detach();
  };
  json r = h.request("tools/call", {{"name", "test_elicitation"}, {"arguments", {{"message", "ok?"}}}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "User response: action=accept, content={\"response\":\"yes\"}");
}

TEST(McpServer, CompanyToolsOverAFakeCompany) {
  testing::FakeCompany company;
  auto backend = CompanyBackend::load(company);
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  Harness h(**backend);
  json list = h.request("tools/list");
  std::vector<std::string> names;
  for (const auto& t : list["result"]["tools"]) names.push_back(t["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"run_task", "ask_agent", "list_agents", "get_budget", "search_memory"}));

  json run =
      h.request("tools/call",
                {{"name", "run_task"}, {"arguments", {{"task", "write a haiku"}}}, {"_meta", {{"progressToken", 9}}}});
  EXPECT_EQ(run["result"]["content"][0]["text"], "answer to: write a haiku");
  EXPECT_EQ(run["result"]["structuredContent"]["state"], "completed");
  auto rel = h.take_related();
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_EQ(rel[0]["params"]["progressToken"], 9);
  EXPECT_EQ(rel[2]["params"]["progress"], 3);
  EXPECT_NE(rel[0]["params"]["message"].get<std::string>().find("step 0"), std::string::npos);

  json failed = h.request("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "fail"}}}});
  EXPECT_TRUE(failed["result"]["isError"].get<bool>());
  EXPECT_NE(failed["result"]["content"][0]["text"].get<std::string>().find("the model refused"), std::string::npos);

  json ask =
      h.request("tools/call", {{"name", "ask_agent"}, {"arguments", {{"agent_name", "Poet"}, {"prompt", "cats"}}}});
  EXPECT_EQ(ask["result"]["content"][0]["text"], "a poem about cats");
  json ask_bad =
      h.request("tools/call", {{"name", "ask_agent"}, {"arguments", {{"agent_name", "Nobody"}, {"prompt", "x"}}}});
  EXPECT_TRUE(ask_bad["result"]["isError"].get<bool>());
  json agents = h.request("tools/call", {{"name", "list_agents"}});
  EXPECT_EQ(agents["result"]["structuredContent"]["result"][0]["name"], "Poet");
  json budget = h.request("tools/call", {{"name", "get_budget"}});
  EXPECT_EQ(budget["result"]["structuredContent"]["expense_remaining"], 9.5);
  json mem = h.request("tools/call", {{"name", "search_memory"}, {"arguments", {{"query", "rust"}}}});
  EXPECT_EQ(mem["result"]["structuredContent"]["memories"], json::array({"User prefers Rust"}));

  json res = h.request("resources/list");
  ASSERT_GE(res["result"]["resources"].size(), 2u);
  std::string uri = res["result"]["resources"][0]["uri"];
  json read = h.request("resources/read", {{"uri", uri}});
  EXPECT_NE(read["result"]["contents"][0]["text"].get<std::string>().find("\"state\""), std::string::npos);
  json journal = h.request("resources/read", {{"uri", uri + "/journal"}});
  EXPECT_TRUE(journal.contains("result"));
  EXPECT_EQ(h.request("resources/read", {{"uri", "kaisha://tasks/none"}})["error"]["code"], -32002);
  json prompt = h.request("prompts/get", {{"name", "delegate_task"}, {"arguments", {{"task", "X1"}}}});
  EXPECT_NE(prompt["result"]["messages"][0]["content"]["text"].get<std::string>().find("X1"), std::string::npos);
}

// Values the company hands over with bytes that are not UTF-8 (a component
// that skipped the repair at its boundary) still give valid results: the
// JSON text of a result is written with U+FFFD, never a type_error 316.
TEST(McpServer, CompanyResultsWithIllFormedBytesAreWrittenAsValidText) {
  testing::FakeCompany company;
  company.agent_suffix = "\xE6\x97";
  company.journal_suffix = "\xFF";
  auto backend = CompanyBackend::load(company);
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  Harness h(**backend);
  const std::string fffd = "\xEF\xBF\xBD";
  json agents = h.request("tools/call", {{"name", "list_agents"}});
  ASSERT_TRUE(agents.contains("result")) << agents.dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_NE(agents["result"]["content"][0]["text"].get<std::string>().find("llama3.2" + fffd), std::string::npos);
  json mem = h.request("tools/call", {{"name", "search_memory"}, {"arguments", {{"query", "rust"}}}});
  ASSERT_TRUE(mem.contains("result")) << mem.dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_NE(mem["result"]["content"][0]["text"].get<std::string>().find("Rust" + fffd), std::string::npos);
  json run = h.request("tools/call", {{"name", "run_task"}, {"arguments", {{"task", "write"}}}});
  ASSERT_TRUE(run.contains("result"));
  json journal = h.request("resources/read", {{"uri", "kaisha://tasks/t1/journal"}});
  ASSERT_TRUE(journal.contains("result")) << journal.dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_NE(journal["result"]["contents"][0]["text"].get<std::string>().find(fffd), std::string::npos);
}

TEST(McpServer, CancelledNotificationCancelsTheRunningTask) {
  testing::FakeCompany company;
  auto backend = CompanyBackend::load(company);
  ASSERT_TRUE(backend.ok());
  Harness h(**backend);
  auto fut = std::async(std::launch::async, [&] {
    return h.call(json{{"jsonrpc", "2.0"},
                       {"id", "run-1"},
                       {"method", "tools/call"},
                       {"params", {{"name", "run_task"}, {"arguments", {{"task", "hang"}}}}}});
  });
  // Keep sending the cancellation until the request has registered.
  while (fut.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    h.call(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "run-1"}}}});
  json r = fut.get();
  EXPECT_TRUE(r["result"]["isError"].get<bool>());
  EXPECT_EQ(r["result"]["structuredContent"]["state"], "canceled");
  EXPECT_EQ(company.cancels.load(), 1);
}

}  // namespace
}  // namespace kaisha::mcp
