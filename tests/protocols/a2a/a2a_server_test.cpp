// The A2A server over real HTTP on loopback, driven with libcurl.
#include "protocols/a2a/a2a_server.hpp"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <functional>

#include "runtime/http/fetch_blocking.hpp"
#include "tests/protocols/http/loopback_client.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::a2a {
namespace {

using testing::FakeCompanyService;

class A2aServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    company.auto_answer = [](const std::string& in) { return "answer: " + in; };
    company.agents_json =
        json{{"Poet", {{"description", "writes poems"}, {"type", "local"}, {"invoke_resource_cost", 40}}}};
    protocols::HttpServerOptions o;
    o.max_body_bytes = 64 * 1024;
    server = std::make_unique<protocols::HttpServer>(o);
    service = mount_a2a(*server, company);
    auto port = server->start();
    ASSERT_TRUE(port.ok()) << port.error().message;
  }

  http::HttpResult post(const json& body, const std::string& version = "1.0", const std::string& raw = "",
                        const std::string& path = "/a2a") {
    http::HttpRequestSpec req;
    req.url = server->base_url() + path;
    req.headers = {{"Content-Type", "application/json"}};
    if (!version.empty()) req.headers.push_back({"A2A-Version", version});
    req.body = raw.empty() ? body.dump() : raw;
    http::HttpOptions opts;
    opts.timeout_ms = 20000;
    return http::fetch_blocking(req, opts);
  }

  http::HttpResult get(const std::string& path, std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = server->base_url() + path;
    req.headers = std::move(headers);
    return http::fetch_blocking(req, {});
  }

  FakeCompanyService company;
  std::unique_ptr<protocols::HttpServer> server;
  std::shared_ptr<A2aService> service;
};

json send(const std::string& method, const std::string& text, bool v1 = true) {
  json part = v1 ? json{{"text", text}} : json{{"kind", "text"}, {"text", text}};
  json message{{"messageId", "m"}, {"role", v1 ? "ROLE_USER" : "user"}, {"parts", json::array({part})}};
  return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", {{"message", message}}}};
}

TEST_F(A2aServerTest, AgentCardListsBothErasAndTheCompanysAgents) {
  auto r = get("/.well-known/agent-card.json");
  ASSERT_EQ(r.status, 200) << r.body;
  json card = json::parse(r.body);
  // JSON-RPC 1.0, HTTP+JSON 1.0, JSON-RPC 0.3: a client takes the first of its binding.
  ASSERT_EQ(card["supportedInterfaces"].size(), 3u);
  EXPECT_EQ(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
  EXPECT_EQ(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
  EXPECT_EQ(card["supportedInterfaces"][0]["url"], server->base_url() + "/a2a");
  EXPECT_EQ(card["supportedInterfaces"][1]["protocolBinding"], "HTTP+JSON");
  EXPECT_EQ(card["supportedInterfaces"][1]["protocolVersion"], "1.0");
  EXPECT_EQ(card["supportedInterfaces"][1]["url"], server->base_url() + "/a2a/rest");
  EXPECT_EQ(card["supportedInterfaces"][2]["protocolBinding"], "JSONRPC");
  EXPECT_EQ(card["supportedInterfaces"][2]["protocolVersion"], "0.3");
  // The v1.0 schema allows no other top-level field: v0.3's are left out...
  for (const char* v03 : {"url", "protocolVersion", "preferredTransport"}) EXPECT_FALSE(card.contains(v03)) << v03;
  // ... unless a v0.3 client asks, by the old path or by its version.
  for (auto legacy : {get("/.well-known/agent.json"), get("/.well-known/agent-card.json", {{"A2A-Version", "0.3"}})}) {
    json old = json::parse(legacy.body);
    EXPECT_EQ(old["url"], server->base_url() + "/a2a");
    EXPECT_EQ(old["protocolVersion"], "0.3.0");
  }
  EXPECT_EQ(card["capabilities"]["streaming"], true);
  std::vector<std::string> skills;
  for (const auto& s : card["skills"]) skills.push_back(s["id"]);
  EXPECT_EQ(skills, (std::vector<std::string>{"company", "Poet"}));
}

TEST_F(A2aServerTest, SendMessageOverHttpInBothEras) {
  auto r = post(send("SendMessage", "hi"));
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(j["result"]["task"]["artifacts"][0]["parts"][0]["text"], "answer: hi");
  // A v0.3 client sends no version header.
  auto old = post(send("message/send", "yo", false), "");
  json o = json::parse(old.body);
  EXPECT_EQ(o["result"]["kind"], "task");
  EXPECT_EQ(o["result"]["status"]["state"], "completed");
}

TEST_F(A2aServerTest, StreamingAnswersWithServerSentEvents) {
  auto r = post(send("SendStreamingMessage", "go"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u);
  std::vector<json> events;
  llm::SseParser p;
  p.feed(r.body, [&](const llm::SseEvent& e) { events.push_back(json::parse(e.data)); });
  ASSERT_GE(events.size(), 4u);
  EXPECT_TRUE(events.front()["result"].contains("task"));
  EXPECT_EQ(events.back()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
  for (const auto& e : events) EXPECT_EQ(e["id"], 1);
}

// A client that subscribes to a long task and goes away releases its task
// subscription at once; before, every such client left a listener on the task
// until the task's next event or its end, so reconnecting clients piled up.
TEST_F(A2aServerTest, AStreamWhoseClientLeftReleasesItsTaskSubscription) {
  company.auto_answer = nullptr;  // the task keeps working
  auto task = company.submit("a long task", nullptr);
  ASSERT_TRUE(task.ok());
  const std::string body =
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "SubscribeToTask"}, {"params", {{"id", *task}}}}.dump();
  std::vector<int> clients;
  for (int i = 0; i < 20; ++i) {
    int fd = kaisha::testing::connect_from("127.0.0." + std::to_string(2 + i % 8), server->port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(kaisha::testing::send_all(
        fd,
        "POST /a2a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n"
        "Content-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body));
    clients.push_back(fd);
  }
  auto eventually = [](auto done) {
    for (int i = 0; i < 3000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done();
  };
  ASSERT_TRUE(eventually([&] { return company.listeners_of(*task) == 20; })) << company.listeners_of(*task);
  for (int fd : clients) ::close(fd);
  EXPECT_TRUE(eventually([&] { return company.listeners_of(*task) == 0; }))
      << company.listeners_of(*task) << " subscriptions left after their clients went away";
  EXPECT_TRUE(eventually([&] { return server->open_connections() == 0; }));
}

TEST_F(A2aServerTest, BadInputGetsJsonRpcErrorsNotCrashes) {
  EXPECT_EQ(json::parse(post({}, "1.0", "{not json").body)["error"]["code"], -32700);
  EXPECT_EQ(json::parse(post(json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "Nope"}}).body)["error"]["code"], -32601);
  json wrong = json::parse(post(send("SendMessage", "x"), "9.9").body);
  EXPECT_EQ(wrong["error"]["code"], code::kVersionNotSupported);
  EXPECT_EQ(wrong["id"], 1);
  json batch = json::parse(post(json::array({send("SendMessage", "a"), send("GetTask", "b")})).body);
  ASSERT_TRUE(batch.is_array());
  EXPECT_EQ(batch[0]["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(batch[1]["error"]["code"], -32602);  // GetTask wants an id
  auto big = post({}, "1.0", std::string(100 * 1024, ' '));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(company.inputs.size(), 1u);  // only the batch's SendMessage
}

// A2A 1.0 section 8.6 (the TCK's CARD-CACHE-001..003).
TEST_F(A2aServerTest, AgentCardCarriesCacheValidatorsAndAnswers304) {
  auto r = get("/.well-known/agent-card.json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("cache-control"), "public, max-age=60");
  const std::string etag = r.header("etag");
  ASSERT_GE(etag.size(), 3u);
  EXPECT_EQ(etag.front(), '"');
  EXPECT_NE(r.header("last-modified").find(" GMT"), std::string::npos) << r.header("last-modified");
  EXPECT_EQ(get("/.well-known/agent-card.json").header("etag"), etag) << "same content, same tag";
  auto again = get("/.well-known/agent-card.json", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  // A hire changes the card, so its tag.
  company.agents_json["Scribe"] = {{"description", "writes"}, {"type", "local"}};
  auto changed = get("/.well-known/agent-card.json", {{"If-None-Match", etag}});
  EXPECT_EQ(changed.status, 200);
  EXPECT_NE(changed.header("etag"), etag);
  EXPECT_NE(get("/.well-known/agent.json").header("etag"), changed.header("etag")) << "the v0.3 card is another body";
}

// A2A 1.0 section 9.5 (the TCK's JSONRPC-ERR-003): A2A errors carry a
// google.rpc.ErrorInfo in a data array; standard JSON-RPC errors do not.
TEST_F(A2aServerTest, A2aErrorsCarryErrorInfo) {
  json get_task{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "GetTask"}, {"params", {{"id", "no-such-task"}}}};
  json e = json::parse(post(get_task).body)["error"];
  EXPECT_EQ(e["code"], code::kTaskNotFound);
  ASSERT_TRUE(e["data"].is_array()) << e.dump();
  const json& info = e["data"][0];
  EXPECT_EQ(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  EXPECT_EQ(info["reason"], "TASK_NOT_FOUND");
  EXPECT_EQ(info["domain"], "a2a-protocol.org");
  json v = json::parse(post(send("SendMessage", "x"), "9.9").body)["error"];
  EXPECT_EQ(v["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
  json batch = json::parse(post(json::array({get_task, json{{"jsonrpc", "2.0"}, {"id", 8}, {"method", "Nope"}}})).body);
  EXPECT_EQ(batch[0]["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
  EXPECT_FALSE(batch[1]["error"].contains("data") && batch[1]["error"]["data"].is_array())
      << "standard errors unchanged";
  // The streaming binding too (refused before a stream opens: plain JSON).
  json sub{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "SubscribeToTask"}, {"params", {{"id", "no-such-task"}}}};
  auto stream = post(sub);
  EXPECT_EQ(stream.header("content-type").rfind("application/json", 0), 0u) << stream.header("content-type");
  EXPECT_EQ(json::parse(stream.body)["error"]["data"][0]["reason"], "TASK_NOT_FOUND") << stream.body;
}

// A streaming request refused before its first event is answered with a
// plain JSON-RPC error, not a stream carrying one (the TCK's STREAM-SUB-003:
// a client sees a refusal as one); an accepted one still streams.
TEST_F(A2aServerTest, AStreamingRequestRefusedAtOnceGetsAPlainJsonRpcError) {
  json sent = json::parse(post(send("SendMessage", "done soon")).body);
  const std::string id = sent["result"]["task"]["id"];
  ASSERT_EQ(sent["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
  auto sub = post(json{{"jsonrpc", "2.0"}, {"id", 4}, {"method", "SubscribeToTask"}, {"params", {{"id", id}}}});
  ASSERT_EQ(sub.status, 200);
  EXPECT_EQ(sub.header("content-type").rfind("application/json", 0), 0u) << sub.header("content-type");
  json e = json::parse(sub.body);
  EXPECT_EQ(e["id"], 4);
  EXPECT_EQ(e["error"]["code"], code::kUnsupportedOperation) << sub.body;
  EXPECT_NE(e["error"]["message"].get<std::string>().find("has already ended"), std::string::npos) << sub.body;
  EXPECT_EQ(e["error"]["data"][0]["reason"], "UNSUPPORTED_OPERATION");

  json file_part{{"raw", "dGNr"}, {"mediaType", "application/x-unsupported"}};
  json bad = send("SendStreamingMessage", "x");
  bad["params"]["message"]["parts"] = json::array({file_part});
  auto refused = post(bad);
  EXPECT_EQ(refused.header("content-type").rfind("application/json", 0), 0u);
  EXPECT_EQ(json::parse(refused.body)["error"]["code"], code::kContentTypeNotSupported) << refused.body;

  company.refuse = Error{"shutdown", "the company is shutting down"};
  auto down = post(send("SendStreamingMessage", "late"));
  EXPECT_EQ(down.header("content-type").rfind("application/json", 0), 0u);
  EXPECT_NE(json::parse(down.body)["error"]["message"].get<std::string>().find("shutting down"), std::string::npos)
      << down.body;
  company.refuse.reset();
  EXPECT_EQ(post(send("SendStreamingMessage", "go")).header("content-type").rfind("text/event-stream", 0), 0u);
}

// A body that says it is not JSON gets ContentTypeNotSupportedError (the
// TCK's JSONRPC-SSE-002), not a parse error; JSON with a charset, a +json
// type or an empty Content-Type is read as before.
TEST_F(A2aServerTest, ANonJsonContentTypeIsContentTypeNotSupported) {
  auto with_type = [&](const std::string& type) {
    http::HttpRequestSpec req;
    req.url = server->base_url() + "/a2a";
    req.headers.push_back({"Content-Type", type});  // "": an empty header (libcurl would send a form type)
    req.headers.push_back({"A2A-Version", "1.0"});
    req.body = send("SendMessage", "typed").dump();
    return json::parse(http::fetch_blocking(req, {}).body);
  };
  for (const std::string type : {"text/plain", "application/x-www-form-urlencoded", "application/jsonp"}) {
    json e = with_type(type);
    EXPECT_EQ(e["error"]["code"], code::kContentTypeNotSupported) << type << ": " << e.dump();
    EXPECT_NE(e["error"]["message"].get<std::string>().find(type), std::string::npos) << e.dump();
    EXPECT_EQ(e["error"]["data"][0]["reason"], "CONTENT_TYPE_NOT_SUPPORTED");
  }
  EXPECT_TRUE(company.inputs.empty());
  for (const std::string type : {"application/json; charset=utf-8", "Application/JSON", "application/a2a+json", ""})
    EXPECT_EQ(with_type(type)["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED") << type;
}

// Every field name of an answer is camelCase, kaisha's metadata included
// (A2A 1.0 section 5.5; the TCK's DM-SERIAL-001).
TEST_F(A2aServerTest, AnswersUseCamelCaseFieldNames) {
  json r = json::parse(post(send("SendMessage", "names")).body);
  std::vector<std::string> snake;
  std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key().find('_') != std::string::npos) snake.push_back(it.key());
        walk(it.value());
      }
    } else if (j.is_array()) {
      for (const auto& e : j) walk(e);
    }
  };
  walk(r);
  EXPECT_TRUE(snake.empty()) << ::testing::PrintToString(snake) << " in " << r.dump();
  EXPECT_TRUE(r["result"]["task"]["metadata"]["kaisha"].contains("tokensIn")) << r.dump();
}

TEST_F(A2aServerTest, TrailingSlashIsTheSameEndpoint) {
  auto r = post(send("SendMessage", "slash"), "1.0", "", "/a2a/");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["result"]["task"]["artifacts"][0]["parts"][0]["text"], "answer: slash");
}

// Deep nesting is refused by the one bounded parser, for the version check's
// id lookup as for the dispatch, and the server goes on answering.
TEST_F(A2aServerTest, ADeeplyNestedBodyGetsAJsonRpcErrorAndTheServerKeepsAnswering) {
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  const std::string body = R"({"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":)" + deep + "}}";
  for (const std::string version : {"1.0", "9.9"}) {
    auto r = post({}, version, body);
    ASSERT_EQ(r.status, 200) << r.body;
    json e = json::parse(r.body);
    if (version == "1.0") {
      EXPECT_EQ(e["error"]["code"], -32600) << r.body;
      EXPECT_NE(e["error"]["message"].get<std::string>().find("nesting deeper than 128 levels"), std::string::npos);
    } else {
      EXPECT_EQ(e["error"]["code"], code::kVersionNotSupported);
      EXPECT_TRUE(e["id"].is_null());  // the id is not dug out of a body too deep to parse
    }
  }
  EXPECT_EQ(json::parse(post(send("SendMessage", "still here")).body)["result"]["task"]["status"]["state"],
            "TASK_STATE_COMPLETED");
}

}  // namespace
}  // namespace kaisha::a2a
