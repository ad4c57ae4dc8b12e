// The public kaisha::Server (include/kaisha/server.hpp): a company offered
// over A2A, MCP and the dashboard from a program, against the scripted mock
// LLM over real HTTP, and the errors start() promises before anything runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "kaisha/server.hpp"
#include "runtime/http/fetch_blocking.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::api_server_test {
namespace {

constexpr const char* kScript = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "川の詩です 🌊 — rivers run to the sea.", usage: { input_tokens: 11, output_tokens: 7 } }
)";

class Finals : public EventSink {
 public:
  void emit(const Event& e) override {
    if (!kaisha::ends_task(e)) return;
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(e.task_id);
  }
  std::vector<std::string> tasks() const {
    std::lock_guard<std::mutex> lock(mu_);
    return tasks_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> tasks_;
};

class ServerTest : public store::testing::TempDirTest {
 protected:
  void SetUp() override {
    store::testing::TempDirTest::SetUp();
    auto script = mockllm::parse_mock_script(kScript, "server_test");
    ASSERT_TRUE(script) << script.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    port_ = *port;
  }

  ServerOptions options(const std::string& extra = "") {
    ServerOptions o;
    o.company.config_text = "store: " + file("kaisha.db") +
                            "\nceo: { model: openai:ceo-model }\n"
                            "providers:\n  openai: { base_url: http://127.0.0.1:" +
                            std::to_string(port_) + "/v1, api_key: mock-key }\n" + extra;
    o.company.config_file = "server.yaml";
    o.company.threads = 2;
    return o;
  }

  static http::HttpResult post(const std::string& url, const json& body,
                               std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::HttpRequestSpec req;
    req.method = "POST";
    req.url = url;
    headers.push_back({"Content-Type", "application/json"});
    req.headers = std::move(headers);
    req.body = body.dump();
    http::HttpOptions o;
    o.timeout_ms = 60000;
    return http::fetch_blocking(req, o);
  }

  static http::HttpResult get(const std::string& url) {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = url;
    http::HttpOptions o;
    o.timeout_ms = 60000;
    return http::fetch_blocking(req, o);
  }

  std::unique_ptr<mockllm::MockLlmServer> mock_;
  int port_ = 0;
};

TEST_F(ServerTest, ServesATaskOverA2aAndMcpFromAProgramAndStopsCleanly) {
  auto finals = std::make_shared<Finals>();
  ServerOptions o = options();
  o.company.events = finals;
  auto server = Server::start(std::move(o));
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string url = (*server)->url();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  EXPECT_FALSE((*server)->session_id().empty());
  EXPECT_EQ((*server)->grpc_target(), "");

  // A2A: a blocking SendMessage runs the task and answers with its result.
  json message = {
      {"messageId", "m-1"}, {"role", "ROLE_USER"}, {"parts", json::array({{{"text", "川について詩を書いて 🌊"}}})}};
  auto sent =
      post(url + "/a2a", {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "SendMessage"}, {"params", {{"message", message}}}},
           {{"A2A-Version", "1.0"}});
  ASSERT_EQ(sent.status, 200) << sent.body;
  EXPECT_NE(sent.body.find("rivers run to the sea"), std::string::npos) << sent.body;
  EXPECT_NE(json::parse(sent.body).dump().find("川の詩です 🌊"), std::string::npos) << sent.body;

  // The card, MCP's initialize and the dashboard's page are on the same server.
  EXPECT_EQ(get(url + "/.well-known/agent-card.json").status, 200);
  auto init = post(url + "/mcp",
                   {{"jsonrpc", "2.0"},
                    {"id", 1},
                    {"method", "initialize"},
                    {"params",
                     {{"protocolVersion", "2025-11-25"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "server_test"}, {"version", "1"}}}}}},
                   {{"Accept", "application/json, text/event-stream"}});
  EXPECT_EQ(init.status, 200) << init.body;
  EXPECT_FALSE(init.header("mcp-session-id").empty());
  auto page = get(url + "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<html"), std::string::npos);

  // The program's own sink heard the task end; the journal holds it, done.
  ASSERT_EQ(finals->tasks().size(), 1u);
  (*server)->stop();
  (*server)->stop();  // idempotent
  EXPECT_EQ((*server)->url(), "");
  EXPECT_FALSE(get(url + "/.well-known/agent-card.json").ok());  // nothing listens any more
  auto j = store::JournalStore::open_read_only(file("kaisha.db"));
  ASSERT_TRUE(j.ok()) << j.error().message;
  auto task = (*j)->get_task(finals->tasks()[0]);
  ASSERT_TRUE(task.ok()) << task.error().message;
  ASSERT_TRUE(task->has_value());
  EXPECT_EQ((*task)->status, "done");
}

TEST_F(ServerTest, ABadAddressIsRefusedBeforeTheCompanyStarts) {
  ServerOptions o = options();
  o.http = "127.0.0.1:port";
  auto server = Server::start(std::move(o));
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.error().message.find("ServerOptions::http"), std::string::npos) << server.error().message;
  EXPECT_FALSE(std::filesystem::exists(file("kaisha.db")));  // nothing was started, nothing written

  ServerOptions g = options();
  g.http = "";
  g.grpc = "127.0.0.1:0";
  auto grpc_alone = Server::start(std::move(g));
  ASSERT_FALSE(grpc_alone.ok());
  EXPECT_NE(grpc_alone.error().message.find("ServerOptions::grpc"), std::string::npos) << grpc_alone.error().message;
}

TEST_F(ServerTest, APortInUseIsAnErrorAndTheFirstServerGoesOn) {
  auto first = Server::start(options());
  ASSERT_TRUE(first.ok()) << first.error().message;
  const std::string url = (*first)->url();
  ServerOptions o = options();
  o.company.config_text =
      "store: " + file("second.db") + "\n" + o.company.config_text.substr(o.company.config_text.find('\n') + 1);
  o.http = url.substr(std::string("http://").size());
  auto second = Server::start(std::move(o));
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("ServerOptions::http"), std::string::npos) << second.error().message;
  EXPECT_EQ(get(url + "/.well-known/agent-card.json").status, 200);
}

TEST_F(ServerTest, AConfigurationErrorNamesItsFileLineAndKey) {
  ServerOptions o = options("serve: { max_sessions: many }\n");
  auto server = Server::start(std::move(o));
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.error().message.find("server.yaml:"), std::string::npos) << server.error().message;
  EXPECT_NE(server.error().message.find("max_sessions"), std::string::npos) << server.error().message;
}

}  // namespace
}  // namespace kaisha::api_server_test
