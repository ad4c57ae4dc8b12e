// The HTTP+JSON binding over real HTTP on loopback, driven with libcurl,
// against the A2A TCK's scenario agent (a test fixture whose tasks end in
// every state the binding must carry) and against a company.
#include "protocols/a2a/a2a_rest.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "protocols/a2a/a2a_server.hpp"
#include "protocols/a2a/tck_scenario_agent.hpp"
#include "runtime/http/fetch_blocking.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::a2a {
namespace {

class A2aRestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    protocols::HttpServerOptions o;
    o.max_body_bytes = 64 * 1024;
    server = std::make_unique<protocols::HttpServer>(o);
    A2aServerOptions a;
    a.service.body_limits.max_bytes = o.max_body_bytes;
    // The long task (test-resubscribe-message-id) is not used here.
    mount_a2a(*server, std::make_shared<TckScenarioAgent>(std::chrono::milliseconds(60'000)), a);
    auto port = server->start();
    ASSERT_TRUE(port.ok()) << port.error().message;
  }

  http::HttpResult request(const std::string& method, const std::string& path, const std::string& body = "",
                           std::vector<std::pair<std::string, std::string>> headers = {
                               {"Content-Type", "application/json"}, {"A2A-Version", "1.0"}}) {
    http::HttpRequestSpec req;
    req.method = method;
    req.url = server->base_url() + "/a2a/rest" + path;
    req.headers = std::move(headers);
    req.body = body;
    http::HttpOptions opts;
    opts.timeout_ms = 20000;
    return http::fetch_blocking(req, opts);
  }

  // POST /message:send with a message of this messageId; the parsed answer.
  json send(const std::string& message_id, const json& extra = json::object(), int expect = 200) {
    json message{{"messageId", message_id}, {"role", "ROLE_USER"}, {"parts", {{{"text", "hi"}}}}};
    message.update(extra);
    auto r = request("POST", "/message:send", json{{"message", message}}.dump());
    EXPECT_EQ(r.status, expect) << r.body;
    return json::parse(r.body, nullptr, false);
  }

  std::unique_ptr<protocols::HttpServer> server;
};

// An AIP-193 error: error.code is the HTTP status, an ErrorInfo with the
// A2A reason in details when there is one.
void expect_error(const http::HttpResult& r, int status, const std::string& reason, const std::string& says) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("application/json", 0), 0u);
  json j = json::parse(r.body, nullptr, false);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r.body;
  EXPECT_EQ(j["error"]["code"], status);
  EXPECT_TRUE(j["error"]["status"].is_string());
  EXPECT_NE(j["error"]["message"].get<std::string>().find(says), std::string::npos) << r.body;
  if (reason.empty()) {
    EXPECT_TRUE(j["error"]["details"].empty()) << r.body;
  } else {
    ASSERT_EQ(j["error"]["details"].size(), 1u) << r.body;
    EXPECT_EQ(j["error"]["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    EXPECT_EQ(j["error"]["details"][0]["reason"], reason);
    EXPECT_EQ(j["error"]["details"][0]["domain"], "a2a-protocol.org");
  }
}

TEST_F(A2aRestTest, SendMessageAnswersTheTaskWithFileAndDataArtifacts) {
  json data = send("tck-artifact-data-1");
  EXPECT_EQ(data["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(data["task"]["artifacts"][0]["parts"][0]["data"], (json{{"key", "value"}, {"count", 42}}));
  json file = send("tck-artifact-file-1");
  json part = file["task"]["artifacts"][0]["parts"][0];
  EXPECT_EQ(part["raw"], "dGNr");
  EXPECT_EQ(part["filename"], "output.txt");
  EXPECT_EQ(part["mediaType"], "text/plain");
  json url = send("tck-artifact-file-url-1");
  EXPECT_EQ(url["task"]["artifacts"][0]["parts"][0]["url"], "https://example.com/output.txt");
  // The same task through GetTask, with the history cut to its last message.
  const std::string id = data["task"]["id"];
  auto got = request("GET", "/tasks/" + id + "?historyLength=1");
  ASSERT_EQ(got.status, 200) << got.body;
  json t = json::parse(got.body);
  EXPECT_EQ(t["id"], id);
  EXPECT_EQ(t["history"].size(), 1u);
}

TEST_F(A2aRestTest, AnAgentMayAnswerWithAMessage) {
  json r = send("tck-message-response-1");
  EXPECT_FALSE(r.contains("task"));
  EXPECT_EQ(r["message"]["role"], "ROLE_AGENT");
  EXPECT_EQ(r["message"]["parts"][0]["text"], "Direct message response");
}

TEST_F(A2aRestTest, AnInputRequiredTaskIsContinuedByTheNextMessage) {
  json first = send("tck-input-required-1", {{"contextId", "ctx-a"}});
  EXPECT_EQ(first["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
  const std::string id = first["task"]["id"];
  EXPECT_EQ(first["task"]["contextId"], "ctx-a");
  // Another context than the task's is refused; the task is untouched.
  json wrong = send("tck-complete-task-2", {{"taskId", id}, {"contextId", "ctx-b"}}, 400);
  EXPECT_NE(wrong["error"]["message"].get<std::string>().find("contextId"), std::string::npos);
  // Its id alone continues it (the context comes from the task).
  json done = send("tck-complete-task-2", {{"taskId", id}});
  EXPECT_EQ(done["task"]["id"], id);
  EXPECT_EQ(done["task"]["contextId"], "ctx-a");
  EXPECT_EQ(done["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(done["task"]["status"]["message"]["parts"][0]["text"], "Hello from TCK");
  std::vector<std::string> users;
  for (const auto& m : done["task"]["history"])
    if (m["role"] == "ROLE_USER") users.push_back(m["messageId"]);
  EXPECT_EQ(users, (std::vector<std::string>{"tck-input-required-1", "tck-complete-task-2"}));
  // An ended task takes no more input, and is not cancelable.
  expect_error(
      request("POST", "/message:send",
              json{{"message",
                    {{"messageId", "m3"}, {"role", "ROLE_USER"}, {"taskId", id}, {"parts", {{{"text", "more"}}}}}}}
                  .dump()),
      400, "UNSUPPORTED_OPERATION", "takes no further input");
  expect_error(request("POST", "/tasks/" + id + ":cancel"), 409, "TASK_NOT_CANCELABLE", id);
}

TEST_F(A2aRestTest, CancelAndListTasks) {
  json waiting = send("tck-input-required-1", {{"contextId", "ctx-list"}});
  const std::string id = waiting["task"]["id"];
  auto canceled = request("POST", "/tasks/" + id + ":cancel");
  ASSERT_EQ(canceled.status, 200) << canceled.body;
  EXPECT_EQ(json::parse(canceled.body)["status"]["state"], "TASK_STATE_CANCELED");
  send("tck-complete-task-2", {{"contextId", "ctx-list"}});
  send("tck-complete-task-3", {{"contextId", "elsewhere"}});
  auto list = request("GET", "/tasks?contextId=ctx-list&status=TASK_STATE_CANCELED&includeArtifacts=false");
  ASSERT_EQ(list.status, 200) << list.body;
  json l = json::parse(list.body);
  ASSERT_EQ(l["tasks"].size(), 1u) << l.dump();
  EXPECT_EQ(l["tasks"][0]["id"], id);
  EXPECT_FALSE(l["tasks"][0].contains("artifacts"));
  json both = json::parse(request("GET", "/tasks?contextId=ctx-list").body);
  ASSERT_EQ(both["tasks"].size(), 2u);
  for (const auto& t : both["tasks"]) EXPECT_FALSE(t.contains("artifacts")) << "artifacts only when asked for";
  json with =
      json::parse(request("GET", "/tasks?contextId=ctx-list&status=TASK_STATE_COMPLETED&includeArtifacts=true").body);
  ASSERT_EQ(with["tasks"].size(), 1u) << with.dump();
  EXPECT_TRUE(with["tasks"][0].contains("artifacts")) << with.dump();
  // A page is filled from the matching tasks, not filtered from the newest few.
  json one = json::parse(request("GET", "/tasks?contextId=ctx-list&pageSize=1").body);
  EXPECT_EQ(one["tasks"].size(), 1u);
  json older = json::parse(request("GET", "/tasks?contextId=ctx-list&status=TASK_STATE_CANCELED&pageSize=1").body);
  ASSERT_EQ(older["tasks"].size(), 1u) << older.dump();  // the canceled one is the older of the three
}

TEST_F(A2aRestTest, StreamsCarryTheResultsAsServerSentEvents) {
  json body{{"message",
             {{"messageId", "tck-stream-artifact-chunked-1"}, {"role", "ROLE_USER"}, {"parts", {{{"text", "go"}}}}}}};
  auto r = request("POST", "/message:stream", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u);
  std::vector<json> events;
  llm::SseParser p;
  p.feed(r.body, [&](const llm::SseEvent& e) { events.push_back(json::parse(e.data)); });
  ASSERT_EQ(events.size(), 5u) << r.body;
  EXPECT_EQ(events[0]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");  // no JSON-RPC envelope
  EXPECT_EQ(events[1]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
  EXPECT_EQ(events[2]["artifactUpdate"]["artifact"]["parts"][0]["text"], "chunk-1 ");
  EXPECT_EQ(events[2]["artifactUpdate"]["lastChunk"], false);
  EXPECT_EQ(events[3]["artifactUpdate"]["append"], true);
  EXPECT_EQ(events[4]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
  // Subscribing to a task that has ended is refused before any stream opens.
  const std::string id = events[0]["task"]["id"];
  expect_error(request("GET", "/tasks/" + id + ":subscribe"), 400, "UNSUPPORTED_OPERATION", "has already ended");
  expect_error(request("POST", "/tasks/nope:subscribe"), 404, "TASK_NOT_FOUND", "nope");
}

TEST_F(A2aRestTest, EveryA2aErrorHasItsHttpStatusAndAnAip193Body) {
  expect_error(request("GET", "/tasks/no-such-task"), 404, "TASK_NOT_FOUND", "no-such-task");
  expect_error(request("POST", "/tasks/no-such-task:cancel"), 404, "TASK_NOT_FOUND", "no-such-task");
  expect_error(request("POST", "/tasks/t1/pushNotificationConfigs", R"({"url":"https://example.com"})"), 400,
               "PUSH_NOTIFICATION_NOT_SUPPORTED", "push notifications");
  expect_error(request("GET", "/extendedAgentCard"), 400, "EXTENDED_AGENT_CARD_NOT_CONFIGURED", "extended");
  expect_error(
      request("POST", "/message:send", R"({"message":{}})", {{"Content-Type", "text/plain"}, {"A2A-Version", "1.0"}}),
      415, "CONTENT_TYPE_NOT_SUPPORTED", "text/plain");
  for (const char* version : {"99.0", "0.3"})
    expect_error(request("GET", "/tasks/x", "", {{"A2A-Version", version}}), 400, "VERSION_NOT_SUPPORTED", version);
  expect_error(request("GET", "/nothing/here"), 404, "", "no A2A operation at GET /a2a/rest/nothing/here");
}

TEST_F(A2aRestTest, BadInputIsRefusedSayingWhatAndWhere) {
  expect_error(request("POST", "/message:send", R"({"message": )"), 400, "", "request body");
  expect_error(request("POST", "/message:send", std::string(500, '[') + std::string(500, ']')), 400, "",
               "nesting deeper");
  expect_error(request("POST", "/message:send", "[1]"), 400, "", "request body: must be a JSON object");
  expect_error(request("POST", "/message:send", R"({"message": 5})"), 400, "", "message");
  expect_error(
      request("POST", "/message:send", R"({"message":{"role":"ROLE_USER","messageId":"m","parts":[{"url":7}]}})"), 400,
      "", "params.message.parts[0].url");
  expect_error(request("GET", "/tasks?pageSize=ten"), 400, "", "pageSize");
  expect_error(request("GET", "/tasks?includeArtifacts=yes"), 400, "", "includeArtifacts");
  expect_error(request("GET", "/tasks/t?historyLength=-1"), 400, "", "historyLength");
  expect_error(request("GET", "/tasks/%FF%FE"), 400, "", "not valid UTF-8");
  // Ill-formed UTF-8 inside the body is repaired where it enters, not a crash.
  auto repaired = request("POST", "/message:send",
                          "{\"message\":{\"role\":\"ROLE_USER\",\"messageId\":\"tck-complete-task-\xff\","
                          "\"parts\":[{\"text\":\"x\"}]}}");
  EXPECT_EQ(repaired.status, 200) << repaired.body;
  // The server's body limit applies before the binding reads anything.
  auto big = request("POST", "/message:send", std::string(70 * 1024, ' '));
  EXPECT_EQ(big.status, 413);
}

TEST(A2aRestCompany, TheCompanyIsServedOnBothBindingsByTheSameService) {
  testing::FakeCompanyService company;
  company.auto_answer = [](const std::string& in) { return "answer: " + in; };
  protocols::HttpServer server(protocols::HttpServerOptions{});
  mount_a2a(server, company);
  ASSERT_TRUE(server.start().ok());
  http::HttpRequestSpec req;
  req.method = "POST";
  req.url = server.base_url() + "/a2a/rest/message:send";
  req.headers = {{"Content-Type", "application/json"}};
  req.body = R"({"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"hi"}]}})";
  auto r = http::fetch_blocking(req, {});
  ASSERT_EQ(r.status, 200) << r.body;
  json t = json::parse(r.body)["task"];
  EXPECT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "answer: hi");
  // The company reads text and data only.
  req.body = R"({"message":{"role":"ROLE_USER","messageId":"m2","parts":[{"url":"https://x/y.png"}]}})";
  auto file = http::fetch_blocking(req, {});
  EXPECT_EQ(file.status, 415) << file.body;
  EXPECT_EQ(company.inputs.size(), 1u);
}

// A limit of kaisha serve (too many tasks or sessions) is not an internal
// error: JSON-RPC gets kaisha's busy code, HTTP+JSON a 429, both with the
// limit's own words; the next request is served once there is room.
TEST(A2aRestCompany, AServeLimitIsTooManyRequestsNotAnInternalError) {
  testing::FakeCompanyService company;
  company.auto_answer = [](const std::string& in) { return "answer: " + in; };
  protocols::HttpServer server(protocols::HttpServerOptions{});
  mount_a2a(server, company);
  ASSERT_TRUE(server.start().ok());
  company.refuse = Error{"limit", "too many tasks: 256 are waiting or running (serve.max_tasks)"};
  http::HttpRequestSpec req;
  req.method = "POST";
  req.url = server.base_url() + "/a2a/rest/message:send";
  req.headers = {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}};
  req.body = R"({"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"hi"}]}})";
  auto rest = http::fetch_blocking(req, {});
  EXPECT_EQ(rest.status, 429) << rest.body;
  json body = json::parse(rest.body, nullptr, false);
  EXPECT_EQ(body["error"]["status"], "RESOURCE_EXHAUSTED") << rest.body;
  EXPECT_NE(body["error"]["message"].get<std::string>().find("serve.max_tasks"), std::string::npos) << rest.body;

  http::HttpRequestSpec rpc = req;
  rpc.url = server.base_url() + "/a2a";
  rpc.body =
      R"({"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m2","parts":[{"text":"hi"}]}}})";
  auto busy = http::fetch_blocking(rpc, {});
  EXPECT_EQ(busy.status, 200) << busy.body;
  json e = json::parse(busy.body, nullptr, false);
  EXPECT_EQ(e["error"]["code"], code::kServerBusy) << busy.body;
  EXPECT_NE(e["error"]["message"].get<std::string>().find("serve.max_tasks"), std::string::npos) << busy.body;

  company.refuse.reset();
  EXPECT_EQ(http::fetch_blocking(req, {}).status, 200);
}

}  // namespace
}  // namespace kaisha::a2a
