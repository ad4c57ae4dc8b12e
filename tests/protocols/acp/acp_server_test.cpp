// The ACP server over real HTTP on loopback, driven with libcurl.
#include "protocols/acp/acp_server.hpp"

#include <gtest/gtest.h>

#include "runtime/http/fetch_blocking.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::acp {
namespace {

using testing::FakeCompanyService;

class AcpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    company.auto_answer = [](const std::string& in) { return "done: " + in; };
    server = std::make_unique<protocols::HttpServer>(protocols::HttpServerOptions{});
    service = mount_acp(*server, company);
    ASSERT_TRUE(server->start().ok());
  }

  http::HttpResult call(const std::string& method, const std::string& path, const std::string& body = "") {
    http::HttpRequestSpec req;
    req.method = method;
    req.url = server->base_url() + path;
    if (!body.empty()) req.headers = {{"Content-Type", "application/json"}};
    req.body = body;
    http::HttpOptions o;
    o.timeout_ms = 20000;
    return http::fetch_blocking(req, o);
  }

  static std::string run_body(const std::string& mode) {
    return json{
        {"agent_name", "kaisha"}, {"mode", mode}, {"input", {{{"role", "user"}, {"parts", {{{"content", "hi"}}}}}}}}
        .dump();
  }

  FakeCompanyService company;
  std::unique_ptr<protocols::HttpServer> server;
  std::shared_ptr<AcpService> service;
};

TEST_F(AcpServerTest, PingAndAgents) {
  auto ping = call("GET", "/ping");
  EXPECT_EQ(ping.status, 200);
  EXPECT_EQ(json::parse(ping.body), json::object());
  auto agents = call("GET", "/agents?limit=5&offset=0");
  EXPECT_EQ(json::parse(agents.body)["agents"][0]["name"], "kaisha");
  auto one = call("GET", "/agents/kaisha");
  EXPECT_EQ(json::parse(one.body)["output_content_types"][0], "text/plain");
  auto none = call("GET", "/agents/ghost");
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(json::parse(none.body)["code"], "not_found");
}

// The company agent's manifest lists what the A2A card lists as skills: the
// company's task and each hired employee; the employees are not agents of
// their own (runs go to the company).
TEST_F(AcpServerTest, TheCompanyManifestListsItsEmployeesAsCapabilities) {
  company.agents_json = json{{"Poet", {{"description", "writes poems"}, {"type", "local"}}}};
  json manifest = json::parse(call("GET", "/agents/kaisha").body);
  const json& caps = manifest["metadata"]["capabilities"];
  ASSERT_EQ(caps.size(), 2u) << manifest.dump();
  EXPECT_EQ(caps[0]["name"], "company");
  EXPECT_EQ(caps[1]["name"], "Poet");
  EXPECT_EQ(caps[1]["description"], "writes poems");
  json listed = json::parse(call("GET", "/agents").body)["agents"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["metadata"]["capabilities"], caps);
  EXPECT_EQ(call("GET", "/agents/Poet").status, 404);
}

TEST_F(AcpServerTest, SyncAsyncAndStreamRuns) {
  auto sync = call("POST", "/runs", run_body("sync"));
  ASSERT_EQ(sync.status, 200) << sync.body;
  json run = json::parse(sync.body);
  EXPECT_EQ(run["status"], "completed");
  EXPECT_EQ(sync.header("run-id"), run["run_id"]);
  EXPECT_EQ(run["output"][0]["parts"][0]["content"], "done: hi");

  auto async = call("POST", "/runs", run_body("async"));
  EXPECT_EQ(async.status, 202);
  const std::string id = json::parse(async.body)["run_id"];
  EXPECT_EQ(json::parse(call("GET", "/runs/" + id).body)["status"], "completed");
  EXPECT_EQ(json::parse(call("GET", "/runs/" + id + "/events").body)["events"].back()["type"], "run.completed");

  auto stream = call("POST", "/runs", run_body("stream"));
  ASSERT_EQ(stream.status, 200);
  EXPECT_EQ(stream.header("content-type").rfind("text/event-stream", 0), 0u);
  EXPECT_FALSE(stream.header("run-id").empty());
  std::vector<std::string> types;
  llm::SseParser p;
  p.feed(stream.body, [&](const llm::SseEvent& e) { types.push_back(json::parse(e.data)["type"]); });
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "run.created");
  EXPECT_EQ(types.back(), "run.completed");
}

TEST_F(AcpServerTest, CancelResumeAndBadInput) {
  const std::string id = json::parse(call("POST", "/runs", run_body("sync")).body)["run_id"];
  auto cancel = call("POST", "/runs/" + id + "/cancel");
  EXPECT_EQ(cancel.status, 403);
  EXPECT_EQ(json::parse(cancel.body)["code"], "invalid_input");
  auto resume =
      call("POST", "/runs/" + id, R"({"await_resume":{"type":"message","message":{"parts":[]}},"mode":"sync"})");
  EXPECT_EQ(resume.status, 403);
  EXPECT_EQ(call("GET", "/runs/not-a-run").status, 404);
  auto bad = call("POST", "/runs", "{\"agent_name\": 5}");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(json::parse(bad.body)["message"].get<std::string>().find("agent_name"), std::string::npos);
  EXPECT_EQ(call("POST", "/runs", "not json").status, 400);
}

// An input nested 100,000 deep once crashed the server (a recursive copy);
// it is refused by the parser with where it went too deep, and the server
// goes on answering.
TEST_F(AcpServerTest, ADeeplyNestedBodyIsRefusedAndTheServerKeepsAnswering) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto run = call("POST", "/runs", R"({"agent_name":"kaisha","input":)" + deep + "}");
  EXPECT_EQ(run.status, 400) << run.body;
  json error = json::parse(run.body);
  EXPECT_EQ(error["code"], "invalid_input");
  EXPECT_EQ(error["message"], "request body: nesting deeper than 128 levels at line 1, column 159");
  auto resume = call("POST", "/runs/x", R"({"await_resume":)" + deep + "}");
  EXPECT_EQ(resume.status, 400) << resume.body;
  EXPECT_EQ(call("GET", "/ping").status, 200);
  EXPECT_TRUE(company.inputs.empty());
}

}  // namespace
}  // namespace kaisha::acp
