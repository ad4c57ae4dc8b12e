// The mock LLM server over real HTTP (cpp-httplib client), on 127.0.0.1 with
// an ephemeral port.
#include "runtime/mockllm/mock_llm_server.hpp"

#include <chrono>
#include <cmath>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "runtime/llm/dialect.hpp"
#include "tests/runtime/llm/chat_fixtures.hpp"

namespace kaisha::mockllm {
namespace {

using llm::ChatRequest;
using llm::Dialect;
using llm::Role;

constexpr const char* kScript = R"(
rules:
  - name: tool-turn
    match: {last_user: "hire", turn: 0}
    reply:
      text: "Hiring {{last_user}}"
      tool_calls:
        - name: AgentCreator
          arguments: {agent_name: Poet, base_model: mistral}
      usage: {input_tokens: 120, output_tokens: 30}
  - name: after-tool
    match: {last_role: tool}
    reply: {text: "tool said {{last_tool}}"}
  - name: no-usage
    match: {model: no-usage}
    reply: {text: "four char tokens here", omit_usage: true}
  - match: {model: rate-limited}
    fault: {status: 429, retry_after: 1}
  - match: {model: broken}
    fault: {status: 500}
  - match: {model: bad-json}
    fault: {kind: malformed_json}
  - match: {model: cut}
    fault: {kind: cut_stream}
  - match: {model: hang}
    fault: {kind: hang}
  - match: {model: close}
    fault: {kind: close}
  - match: {model: slow}
    reply: {text: slow answer, latency_ms: 300}
  - match: {model: "re:^echo"}
    reply: {text: "echo: {{last_user}}"}
)";

class Server {
 public:
  explicit Server(const std::string& script, MockServerOptions opts = {}) {
    auto s = parse_mock_script(script, "test.yaml");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    server_ = std::make_unique<MockLlmServer>(*s, opts);
    auto p = server_->start("127.0.0.1", 0);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    port_ = p.ok() ? *p : 0;
  }
  MockLlmServer& operator*() { return *server_; }
  MockLlmServer* operator->() { return server_.get(); }
  int port() const { return port_; }

  // The base_url each dialect expects for this server.
  std::string base(std::string_view dialect) const {
    std::string root = "http://127.0.0.1:" + std::to_string(port_);
    if (dialect == "openai") return root + "/v1";
    if (dialect == "gemini") return root + "/v1beta";
    return root;
  }

 private:
  std::unique_ptr<MockLlmServer> server_;
  int port_ = 0;
};

httplib::Result send(int port, const llm::HttpRequestSpec& spec, int timeout_s = 10) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(timeout_s, 0);
  cli.set_connection_timeout(5, 0);
  httplib::Headers headers;
  std::string content_type = "application/json";
  for (const auto& [k, v] : spec.headers) {
    if (k == "Content-Type")
      content_type = v;
    else
      headers.emplace(k, v);
  }
  return cli.Post(llm::testing::path_of(spec.url), headers, spec.body, content_type);
}

ChatRequest ask(std::string model, std::string text, bool stream = false) {
  ChatRequest r;
  r.model = std::move(model);
  r.messages.push_back({Role::system, "You are the CEO.", {}, "", ""});
  r.messages.push_back({Role::user, std::move(text), {}, "", ""});
  r.tools.push_back({"AgentCreator", "Creates an agent", json::parse(R"({"type":"object"})")});
  r.stream = stream;
  return r;
}

// Sends `req` through `d` and decodes the answer as a client would.
Result<llm::ChatResponse> chat(Server& s, const Dialect& d, const ChatRequest& req, int* status = nullptr) {
  auto res = send(s.port(), d.chat_request(req, {s.base(d.name()), "test-key", {}}));
  if (!res) return Error{"http", "transport error " + httplib::to_string(res.error())};
  if (status) *status = res->status;
  if (res->status != 200) return Error{"http", d.describe_error(res->status, res->body)};
  if (!req.stream) return d.parse_chat_response(res->body);
  auto dec = d.stream_decoder();
  dec->feed(res->body);
  return dec->finish();
}

class EndToEnd : public ::testing::TestWithParam<std::string> {
 protected:
  const Dialect& d() const { return *llm::find_dialect(GetParam()); }
};

TEST_P(EndToEnd, ToolCallThenToolResultPlainAndStreaming) {
  Server s(kScript);
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streaming" : "plain");
    ChatRequest req = ask("gemini-2.0-flash", "please hire a poet", stream);
    auto r = chat(s, d(), req);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->message.content, "Hiring please hire a poet");
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    EXPECT_EQ(r->message.tool_calls[0].name, "AgentCreator");
    EXPECT_EQ(json::parse(r->message.tool_calls[0].arguments),
              json::parse(R"({"agent_name":"Poet","base_model":"mistral"})"));
    EXPECT_EQ(r->finish_reason, "tool_calls");
    EXPECT_EQ(r->usage.input_tokens, 120);
    EXPECT_EQ(r->usage.output_tokens, 30);
    EXPECT_FALSE(r->usage.estimated);

    // Send the tool result back: the next rule answers with its content.
    req.messages.push_back(r->message);
    req.messages.push_back({Role::tool, "Poet hired, 3 remaining", {}, r->message.tool_calls[0].id, "AgentCreator"});
    auto r2 = chat(s, d(), req);
    ASSERT_TRUE(r2.ok()) << r2.error().message;
    EXPECT_EQ(r2->message.content, "tool said Poet hired, 3 remaining");
    EXPECT_EQ(r2->finish_reason, "stop");
  }
  auto log = s->request_log();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0]["dialect"], GetParam());
  EXPECT_EQ(log[0]["rule"], "tool-turn");
  EXPECT_EQ(log[0]["status"], 200);
  EXPECT_EQ(log[1]["rule"], "after-tool");
  EXPECT_EQ(log[2]["stream"], true);
}

// The log shows the sampling each request asked for, as its dialect carried
// it: the seed of every dialect that has one (Anthropic's has none).
TEST_P(EndToEnd, TheLogShowsTheTemperatureAndSeedAsked) {
  Server s(kScript);
  ChatRequest req = ask("echo-sampled", "hi");
  ASSERT_TRUE(chat(s, d(), req).ok());
  req.temperature = 0.8;
  req.seed = 10;
  ASSERT_TRUE(chat(s, d(), req).ok());
  auto log = s->request_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(log[0]["temperature"].is_null()) << log[0].dump();
  EXPECT_TRUE(log[0]["seed"].is_null()) << log[0].dump();
  EXPECT_EQ(log[1]["temperature"], 0.8) << log[1].dump();
  if (GetParam() == "anthropic")
    EXPECT_TRUE(log[1]["seed"].is_null()) << log[1].dump();
  else
    EXPECT_EQ(log[1]["seed"], 10) << log[1].dump();
}

TEST_P(EndToEnd, OmittedUsageIsEstimatedByTheClient) {
  Server s(kScript);
  auto r = chat(s, d(), ask("no-usage", "hi"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->usage.estimated);
  EXPECT_EQ(r->usage.output_tokens, 6);  // 21 chars / 4, rounded up
}

TEST_P(EndToEnd, ScriptedStatusFaultsUseTheDialectsErrorBody) {
  Server s(kScript);
  auto res = send(s.port(), d().chat_request(ask("rate-limited", "hi"), {s.base(d().name()), "", {}}));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 429);
  EXPECT_EQ(res->get_header_value("Retry-After"), "1");
  EXPECT_NE(d().describe_error(429, res->body).find("scripted fault"), std::string::npos) << res->body;
  int status = 0;
  auto r = chat(s, d(), ask("broken", "hi"), &status);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(status, 500);
}

TEST_P(EndToEnd, MalformedJsonAndCutStreamsAreClientErrors) {
  Server s(kScript);
  for (bool stream : {false, true}) {
    auto bad = chat(s, d(), ask("bad-json", "hi", stream));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "llm") << bad.error().message;
    auto cut = chat(s, d(), ask("cut", "hi", stream));
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().code, "llm") << cut.error().message;
    if (stream) {
      EXPECT_NE(cut.error().message.find("stream ended before"), std::string::npos) << cut.error().message;
    }
  }
}

TEST_P(EndToEnd, Embeddings) {
  if (!d().supports_embeddings()) GTEST_SKIP() << "no embeddings API";
  Server s(kScript);
  llm::EmbedRequest req{"embed", {"the cat sat on the mat", "the cat sat on a mat", "quantum chromodynamics"}};
  auto res = send(s.port(), d().embed_request(req, {s.base(d().name()), "", {}}));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto e = d().parse_embed_response(res->body);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->vectors.size(), 3u);
  auto dot = [](const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  EXPECT_NEAR(dot(e->vectors[0], e->vectors[0]), 1.0, 1e-4);
  EXPECT_GT(dot(e->vectors[0], e->vectors[1]), 0.7);
  EXPECT_LT(dot(e->vectors[0], e->vectors[2]), 0.4);
  EXPECT_GT(dot(e->vectors[0], e->vectors[1]), dot(e->vectors[0], e->vectors[2]));
}

INSTANTIATE_TEST_SUITE_P(AllDialects, EndToEnd, ::testing::Values("openai", "ollama", "gemini", "anthropic"),
                         [](const auto& info) { return info.param; });

TEST(MockLlmServer, UnmatchedRequestExplainsItself) {
  Server s("rules:\n  - match: {model: x}\n    reply: {text: a}\n");
  int status = 0;
  auto r = chat(s, llm::openai_dialect(), ask("other-model", "what now"), &status);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(status, 500);
  EXPECT_NE(r.error().message.find("mock-llm: no rule matched"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("other-model"), std::string::npos);
  EXPECT_NE(r.error().message.find("what now"), std::string::npos);
}

TEST(MockLlmServer, HangTimesOutTheClientAndStopReleasesIt) {
  Server s(kScript);
  auto start = std::chrono::steady_clock::now();
  auto res = send(s.port(), llm::openai_dialect().chat_request(ask("hang", "hi"), {s.base("openai"), "", {}}), 1);
  EXPECT_FALSE(res);  // read timeout
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  auto stop_start = std::chrono::steady_clock::now();
  s->stop();  // must not wait out the hang
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start, std::chrono::seconds(30));
}

TEST(MockLlmServer, CloseDropsTheConnection) {
  Server s(kScript);
  auto r = chat(s, llm::ollama_dialect(), ask("close", "hi"));
  EXPECT_FALSE(r.ok());
}

TEST(MockLlmServer, IntrospectionAndReset) {
  Server s(std::string(kScript) + "\n" + R"(
  - name: once
    match: {model: once}
    times: 1
    reply: {text: first}
)");
  // Note: appended after the catch-alls above, so only model "once" reaches it.
  httplib::Client cli("127.0.0.1", s.port());
  ASSERT_TRUE(chat(s, llm::openai_dialect(), ask("once", "hi")).ok());
  EXPECT_FALSE(chat(s, llm::openai_dialect(), ask("once", "hi")).ok());  // used up
  auto log = cli.Get("/_mock/requests");
  ASSERT_TRUE(log);
  auto arr = json::parse(log->body);
  ASSERT_EQ(arr.size(), 2u);
  EXPECT_EQ(arr[0]["rule"], "once");
  EXPECT_EQ(arr[0]["model"], "once");
  EXPECT_EQ(arr[0]["last_message"], "user: hi");
  EXPECT_EQ(arr[1]["status"], 500);
  auto reset = cli.Post("/_mock/reset", "", "application/json");
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->status, 200);
  EXPECT_TRUE(s->request_log().empty());
  EXPECT_TRUE(chat(s, llm::openai_dialect(), ask("once", "hi")).ok());  // counter reset

  auto tags = cli.Get("/api/tags");
  ASSERT_TRUE(tags);
  auto models = json::parse(tags->body)["models"];
  bool found = false;
  for (const auto& m : models) found = found || m["name"] == "rate-limited";
  EXPECT_TRUE(found) << tags->body;
  auto unknown = cli.Get("/no/such/path");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST(MockLlmServer, FlakyExampleRecoversAfterOne429) {
  auto script = load_mock_script(std::string(KAISHA_SOURCE_DIR) + "/examples/mock/faults.yaml");
  ASSERT_TRUE(script.ok()) << script.error().message;
  MockLlmServer server(*script);
  auto port = server.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message;
  const Dialect& d = llm::openai_dialect();
  std::string base = "http://127.0.0.1:" + std::to_string(*port) + "/v1";
  auto first = send(*port, d.chat_request(ask("flaky-429", "hi"), {base, "", {}}));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 429);
  EXPECT_EQ(first->get_header_value("Retry-After"), "1");
  auto second = send(*port, d.chat_request(ask("flaky-429", "hi"), {base, "", {}}));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  auto bad = d.parse_chat_response(send(*port, d.chat_request(ask("bad-args", "hi"), {base, "", {}}))->body);
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  ASSERT_EQ(bad->message.tool_calls.size(), 1u);
  EXPECT_EQ(bad->message.tool_calls[0].arguments, R"({"agent_name": "X",)");
}

TEST(MockLlmServer, ServesSlowRequestsInParallel) {
  Server s(kScript);
  constexpr int kRequests = 200;
  std::atomic<int> ok{0};
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back([&] {
      auto res = send(s.port(), llm::ollama_dialect().chat_request(ask("slow", "hi"), {s.base("ollama"), "", {}}), 30);
      if (res && res->status == 200)
        ++ok;
      else
        ADD_FAILURE() << (res ? "HTTP " + std::to_string(res->status) : httplib::to_string(res.error()));
    });
  }
  for (auto& t : threads) t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ok, kRequests);
  EXPECT_LT(secs, 5.0) << "200 requests with 300 ms latency each took " << secs << " s";
}

TEST(MockLlmServer, StartFailsClearlyOnABusyPort) {
  Server a(kScript);
  auto script = parse_mock_script("rules: []\n");
  MockLlmServer b(*script);
  auto r = b.start("127.0.0.1", a.port());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(std::to_string(a.port())), std::string::npos) << r.error().message;
}

TEST(MockLlmServer, ServeReturnsWhenStopped) {
  auto script = parse_mock_script("rules: []\n");
  MockLlmServer server(*script);
  std::thread stopper([&] {
    for (int i = 0; i < 200 && server.port() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    server.stop();
  });
  Status st = server.serve("127.0.0.1", 0);
  stopper.join();
  EXPECT_TRUE(st.ok()) << st.error().message;
}

}  // namespace
}  // namespace kaisha::mockllm
