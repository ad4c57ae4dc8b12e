// Remote agents as employees: the client's A2A and ACP clients against
// kaisha's own A2A and ACP servers (real HTTP on loopback), each serving a
// fake company that stands in for the remote agent.
#include "protocols/remote/remote_agent_client.hpp"

#include <gtest/gtest.h>

#include <future>

#include "protocols/a2a/a2a_client.hpp"
#include "protocols/a2a/a2a_server.hpp"
#include "protocols/acp/acp_server.hpp"
#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::remote {
namespace {

using testing::FakeCompanyService;

// A chat client for everything that is not remote: records the refs it got.
class InnerBackend : public company::ChatClient {
 public:
  Status check_model(const std::string& ref) const override {
    return ref == "ollama:llama3.2" ? Status::Ok() : Status(Error{"config", "unknown " + ref});
  }
  void chat(const std::string& ref, llm::ChatRequest, company::ChatHandlers h) override {
    llm::ChatResponse r;
    r.message.content = "inner " + ref;
    h.on_done(r);
  }
};

Result<llm::ChatResponse> chat(RemoteAgentClient& b, const std::string& ref, const std::string& question) {
  llm::ChatRequest req;
  req.messages.push_back({llm::Role::system, "You are a helper.", {}, "", ""});
  req.messages.push_back({llm::Role::user, question, {}, "", ""});
  std::promise<Result<llm::ChatResponse>> p;
  company::ChatHandlers h;
  h.on_done = [&](Result<llm::ChatResponse> r) { p.set_value(std::move(r)); };
  b.chat(ref, req, std::move(h));
  return p.get_future().get();
}

class RemoteAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent.auto_answer = [](const std::string& in) {
      return in == "fail please" ? std::string("ERROR:cannot do that") : "remote says: " + in;
    };
    server = std::make_unique<protocols::HttpServer>(protocols::HttpServerOptions{});
    a2a_service = a2a::mount_a2a(*server, agent);
    acp::AcpServerOptions ao;
    ao.service.agent_name = "helper";
    acp_service = acp::mount_acp(*server, agent, ao);
    ASSERT_TRUE(server->start().ok());
    base = server->base_url();
  }

  FakeCompanyService agent;
  std::unique_ptr<protocols::HttpServer> server;
  std::shared_ptr<a2a::A2aService> a2a_service;
  std::shared_ptr<acp::AcpService> acp_service;
  std::string base;
};

TEST_F(RemoteAgentTest, A2aAgentAnswersAsAnEmployeeWouldAStreamedCardIsStreamed) {
  RemoteAgentClient b(std::make_shared<InnerBackend>());
  const std::string ref = "a2a:" + base;
  b.prefetch({ref});
  EXPECT_TRUE(b.check_model(ref).ok());
  auto r = chat(b, ref, "write a haiku");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->message.content, "remote says: write a haiku");
  EXPECT_EQ(r->message.role, llm::Role::assistant);
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_GT(r->usage.input_tokens, 0);
  EXPECT_GT(r->usage.output_tokens, 0);
  EXPECT_EQ(agent.inputs, std::vector<std::string>{"write a haiku"});  // the last user message only
}

TEST_F(RemoteAgentTest, A2aAgentFailureIsAnErrorNamingTheAgent) {
  RemoteAgentClient b(nullptr);
  auto r = chat(b, "a2a:" + base, "fail please");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "a2a");
  EXPECT_NE(r.error().message.find(base + "/a2a"), std::string::npos);
  EXPECT_NE(r.error().message.find("cannot do that"), std::string::npos);
}

// A server may refuse a streaming request with a plain JSON-RPC error
// instead of opening a stream (kaisha's own server does): the ask fails with
// the server's reason, not with "the stream ended".
TEST_F(RemoteAgentTest, A2aAgentRefusingAStreamIsAnErrorWithItsReason) {
  RemoteAgentClient b(nullptr);
  agent.refuse = Error{"shutdown", "the company is shutting down"};
  auto r = chat(b, "a2a:" + base, "anyone there?");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "a2a");
  EXPECT_NE(r.error().message.find("the company is shutting down"), std::string::npos) << r.error().message;
}

TEST_F(RemoteAgentTest, AcpAgentAnswersByNameOrAsTheFirstListed) {
  RemoteAgentClient b(nullptr);
  auto named = chat(b, "acp:" + base + "#helper", "sum 2 and 2");
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->message.content, "remote says: sum 2 and 2");
  auto first = chat(b, "acp:" + base, "again");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->message.content, "remote says: again");
  auto failed = chat(b, "acp:" + base + "#helper", "fail please");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, "acp");
  EXPECT_NE(failed.error().message.find("cannot do that"), std::string::npos);
}

TEST_F(RemoteAgentTest, UnreachableOrUnknownAgentsAreRefusedAtHireTime) {
  RemoteAgentClient b(std::make_shared<InnerBackend>());
  // A port nothing listens on: the server's own, after it stopped.
  auto other = std::make_unique<protocols::HttpServer>(protocols::HttpServerOptions{});
  ASSERT_TRUE(other->start().ok());
  const std::string dead = other->base_url();
  other->stop();
  const std::string missing_agent = "acp:" + base + "#nobody";
  b.prefetch({"a2a:" + dead, missing_agent, "a2a:" + base});
  Status s = b.check_model("a2a:" + dead);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(dead), std::string::npos);
  Status m = b.check_model(missing_agent);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("nobody"), std::string::npos);
  EXPECT_TRUE(b.check_model("a2a:" + base).ok());
  EXPECT_FALSE(b.check_model("a2a:not-a-url").ok());
  auto r = chat(b, "a2a:" + dead, "hello?");
  EXPECT_FALSE(r.ok());
}

TEST_F(RemoteAgentTest, OtherRefsGoToTheInnerBackend) {
  RemoteAgentClient b(std::make_shared<InnerBackend>());
  EXPECT_TRUE(b.check_model("ollama:llama3.2").ok());
  EXPECT_FALSE(b.check_model("openai:nope").ok());
  auto r = chat(b, "ollama:llama3.2", "x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.content, "inner ollama:llama3.2");
  EXPECT_TRUE(agent.inputs.empty());
}

TEST_F(RemoteAgentTest, ASlowAgentTimesOutWithAClearError) {
  FakeCompanyService slow;  // never finishes its tasks
  protocols::HttpServer s2(protocols::HttpServerOptions{});
  auto svc = a2a::mount_a2a(s2, slow);
  ASSERT_TRUE(s2.start().ok());
  RemoteAgentOptions o;
  o.timeout_ms = 1500;
  RemoteAgentClient b(nullptr, o);
  auto r = chat(b, "a2a:" + s2.base_url(), "take forever");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "timeout") << r.error().message;
  EXPECT_NE(r.error().message.find(s2.base_url()), std::string::npos);
  s2.stop();
}

}  // namespace
}  // namespace kaisha::remote

namespace kaisha::remote {
namespace {

// A hostile A2A peer's JSON-RPC error: a code no integer holds and a
// message that is not a string. The ask fails with what the peer sent,
// never with a crash or undefined behaviour.
TEST(A2aClientAgainstAHostilePeer, AnErrorWithAnyCodeAndMessageIsReportedAsSent) {
  protocols::HttpServer server(protocols::HttpServerOptions{});
  server.route("POST", "/a2a", [](const protocols::HttpRequest&, protocols::HttpResponse& r) {
    r.body = R"({"jsonrpc":"2.0","id":1,"error":{"code":1e300,"message":{"not":"a string"}}})";
  });
  ASSERT_TRUE(server.start().ok());
  http::HttpClient http;
  a2a::A2aClient client(http);
  a2a::RemoteAgentCard card;
  card.endpoint = server.base_url() + "/a2a";
  std::promise<Result<std::string>> answered;
  client.ask(card, "こんにちは", [&](Result<std::string> r) { answered.set_value(std::move(r)); });
  auto r = answered.get_future().get();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("error 1e+300: (no message)"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::remote
