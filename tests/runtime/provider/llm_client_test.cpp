// LlmClient against the real mock LLM server over HTTP, in all four dialects.
#include "runtime/provider/llm_client.hpp"

#include <atomic>
#include <future>
#include <thread>
#include <mutex>

#include <gtest/gtest.h>

#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"

namespace kaisha::provider {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kScript = R"(
rules:
  - name: tool
    match: { model: tool-model }
    reply:
      text: "let me look"
      tool_calls:
        - name: lookup
          arguments: { query: "{{last_user}}" }
      usage: { input_tokens: 11, output_tokens: 7 }
  - name: no-usage
    match: { model: no-usage }
    reply: { text: "twelve chars", omit_usage: true }
  - name: rate-limited-once
    match: { model: flaky-429 }
    times: 1
    fault: { status: 429, retry_after: 1 }
  - name: flaky-500-twice
    match: { model: flaky-500 }
    times: 2
    fault: { status: 500 }
  - name: bad-request
    match: { model: bad-request }
    fault: { status: 400 }
  - name: broken
    match: { model: broken-500 }
    fault: { status: 500 }
  - name: hang
    match: { model: hang }
    fault: { kind: hang }
  - name: cut
    match: { model: cut }
    fault: { kind: cut_stream }
  - name: bad-json
    match: { model: bad-json }
    fault: { kind: malformed_json }
  - name: recovered
    reply: { text: "hello there, general kenobi", usage: { input_tokens: 5, output_tokens: 6 } }
)";

class LlmClientMock : public ::testing::Test {
 protected:
  void SetUp() override {
    auto script = mockllm::parse_mock_script(kScript, "llm_client_test");
    ASSERT_TRUE(script) << script.error().message;
    server_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = server_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    base_ = "http://127.0.0.1:" + std::to_string(*port);
  }

  config::Config make_config(int max_attempts = 4, int64_t timeout_ms = 10000) {
    config::Config cfg;
    auto add = [&](std::string name, std::string base, std::string key) {
      config::ProviderConfig p;
      p.name = name;
      p.dialect = name;
      p.base_url = std::move(base);
      p.api_key = std::move(key);
      p.timeout_ms = timeout_ms;
      p.connect_timeout_ms = 2000;
      cfg.providers[name] = p;
    };
    add("openai", base_ + "/v1", "");  // loopback: no key needed
    add("ollama", base_, "");
    add("gemini", base_ + "/v1beta", "test-key");
    add("anthropic", base_, "test-key");
    cfg.retry.max_attempts = max_attempts;
    cfg.retry.base_delay_ms = 20;
    cfg.retry.max_delay_ms = 3000;
    return cfg;
  }

  static llm::ChatRequest ask(std::string text, bool stream = false) {
    llm::ChatRequest req;
    req.messages.push_back({llm::Role::system, "You are terse.", {}, "", ""});
    req.messages.push_back({llm::Role::user, std::move(text), {}, "", ""});
    llm::ToolSpec tool;
    tool.name = "lookup";
    tool.description = "looks things up";
    tool.parameters = json{{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}};
    req.tools.push_back(tool);
    req.stream = stream;
    return req;
  }

  std::unique_ptr<mockllm::MockLlmServer> server_;
  std::string base_;
};

TEST_F(LlmClientMock, EachDialectRoundTripsAToolCallWithUsage) {
  LlmClient client(make_config());
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    auto r = client.chat_sync(provider + ":tool-model", ask("weather in Kyoto"));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->message.content, "let me look");
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    EXPECT_EQ(r->message.tool_calls[0].name, "lookup");
    EXPECT_EQ(json::parse(r->message.tool_calls[0].arguments), (json{{"query", "weather in Kyoto"}}));
    EXPECT_EQ(r->usage.input_tokens, 11);
    EXPECT_EQ(r->usage.output_tokens, 7);
    EXPECT_FALSE(r->usage.estimated);
  }
  auto log = server_->request_log();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].value("model", ""), "tool-model");
}

TEST_F(LlmClientMock, StreamingDeliversTextDeltasInEachDialect) {
  LlmClient client(make_config());
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    std::string streamed;
    int deltas = 0;
    auto r = client.chat_sync(provider + ":plain", ask("hi", /*stream=*/true), [&](std::string_view t) {
      streamed += t;
      ++deltas;
    });
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->message.content, "hello there, general kenobi");
    EXPECT_EQ(streamed, r->message.content);
    EXPECT_GE(deltas, 1);
  }
  for (const auto& entry : server_->request_log()) EXPECT_TRUE(entry.value("stream", false)) << entry.dump();
}

TEST_F(LlmClientMock, StreamingToolCall) {
  LlmClient client(make_config());
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    auto r = client.chat_sync(provider + ":tool-model", ask("x", true));
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    EXPECT_EQ(r->message.tool_calls[0].name, "lookup");
  }
}

TEST_F(LlmClientMock, SetsModelFromRefAndCallbacksRunOffCallerThread) {
  LlmClient client(make_config());
  std::promise<std::pair<Result<llm::ChatResponse>, std::thread::id>> p;
  ChatCallbacks cb;
  cb.on_done = [&](Result<llm::ChatResponse> r) { p.set_value({std::move(r), std::this_thread::get_id()}); };
  llm::ChatRequest req = ask("hi");
  req.model = "ignored";
  client.chat("ollama:some-model:7b", req, cb);
  auto [r, tid] = p.get_future().get();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(tid, std::this_thread::get_id());
  EXPECT_EQ(server_->request_log().at(0).value("model", ""), "some-model:7b");
}

TEST_F(LlmClientMock, EstimatesUsageWhenProviderOmitsIt) {
  LlmClient client(make_config());
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    auto r = client.chat_sync(provider + ":no-usage", ask("hi"));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->usage.estimated);
    EXPECT_GE(r->usage.input_tokens, 1);
    EXPECT_EQ(r->usage.output_tokens, 3);  // "twelve chars": 12 chars / 4
  }
}

TEST_F(LlmClientMock, RetriesAfter429HonouringRetryAfter) {
  LlmClient client(make_config());
  std::vector<RetryNotice> notices;
  auto t0 = Clock::now();
  auto r = client.chat_sync("openai:flaky-429", ask("hi"), {}, [&](const RetryNotice& n) { notices.push_back(n); });
  auto took = Clock::now() - t0;
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->message.content, "hello there, general kenobi");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].next_attempt, 2);
  EXPECT_EQ(notices[0].delay, 1000ms);  // Retry-After: 1, not the 20 ms backoff
  EXPECT_NE(notices[0].reason.find("429"), std::string::npos) << notices[0].reason;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 8s);
}

// A Retry-After longer than max_delay_ms (the backoff's cap) is still
// honoured: retrying sooner would only be refused again.
TEST_F(LlmClientMock, RetryAfterBeyondMaxDelayIsHonoured) {
  config::Config cfg = make_config();
  cfg.retry.max_delay_ms = 100;
  cfg.retry.max_retry_after_ms = 5000;
  LlmClient client(cfg);
  std::vector<RetryNotice> notices;
  auto t0 = Clock::now();
  auto r = client.chat_sync("openai:flaky-429", ask("hi"), {}, [&](const RetryNotice& n) { notices.push_back(n); });
  auto took = Clock::now() - t0;
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].delay, 1000ms);  // Retry-After: 1, not max_delay_ms
  EXPECT_GE(took, 900ms);
}

TEST_F(LlmClientMock, Retries500ThenSucceeds) {
  LlmClient client(make_config());
  int retries = 0;
  auto r = client.chat_sync("anthropic:flaky-500", ask("hi"), {}, [&](const RetryNotice&) { ++retries; });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(retries, 2);
  EXPECT_EQ(server_->request_log().size(), 3u);
}

TEST_F(LlmClientMock, Persistent500FailsAfterMaxAttemptsWithClearMessage) {
  LlmClient client(make_config(3));
  auto r = client.chat_sync("openai:broken-500", ask("hi"));
  ASSERT_FALSE(r);
  const std::string& m = r.error().message;
  EXPECT_EQ(r.error().code, "http");
  EXPECT_NE(m.find("openai:broken-500 at " + base_ + "/v1/chat/completions"), std::string::npos) << m;
  EXPECT_NE(m.find("failed after 3 attempts"), std::string::npos) << m;
  EXPECT_NE(m.find("HTTP 500"), std::string::npos) << m;
  EXPECT_EQ(server_->request_log().size(), 3u);
}

TEST_F(LlmClientMock, ClientErrorIsNotRetried) {
  LlmClient client(make_config());
  auto r = client.chat_sync("gemini:bad-request", ask("hi"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("HTTP 400"), std::string::npos) << r.error().message;
  EXPECT_EQ(server_->request_log().size(), 1u);
}

TEST_F(LlmClientMock, HangTimesOutWithinConfiguredTimeout) {
  LlmClient client(make_config(1, 300));
  auto t0 = Clock::now();
  auto r = client.chat_sync("ollama:hang", ask("hi"));
  auto took = Clock::now() - t0;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "timeout") << r.error().message;
  EXPECT_NE(r.error().message.find("failed after 1 attempt"), std::string::npos) << r.error().message;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 5s);
}

TEST_F(LlmClientMock, HangIsRetriedThenTimesOut) {
  LlmClient client(make_config(2, 300));
  auto r = client.chat_sync("openai:hang", ask("hi"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "timeout");
  EXPECT_NE(r.error().message.find("after 2 attempts"), std::string::npos) << r.error().message;
}

TEST_F(LlmClientMock, CutStreamIsRetriedThenFails) {
  LlmClient client(make_config(3));
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    server_->reset();
    int retries = 0;
    auto r = client.chat_sync(provider + ":cut", ask("hi", true), {}, [&](const RetryNotice&) { ++retries; });
    ASSERT_FALSE(r);
    EXPECT_EQ(retries, 2);
    EXPECT_NE(r.error().message.find("after 3 attempts"), std::string::npos) << r.error().message;
    EXPECT_EQ(server_->request_log().size(), 3u);
  }
}

TEST_F(LlmClientMock, MalformedBodyIsAnError) {
  LlmClient client(make_config(2));
  for (std::string provider : {"openai", "ollama", "gemini", "anthropic"}) {
    SCOPED_TRACE(provider);
    auto r = client.chat_sync(provider + ":bad-json", ask("hi"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "llm");
    EXPECT_NE(r.error().message.find("unparseable response body"), std::string::npos) << r.error().message;
  }
}

TEST_F(LlmClientMock, ConnectionRefusedIsRetriedThenReported) {
  auto cfg = make_config(2);
  server_->stop();
  LlmClient client(cfg);
  auto r = client.chat_sync("ollama:x", ask("hi"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "connect") << r.error().message;
  EXPECT_NE(r.error().message.find("after 2 attempts"), std::string::npos) << r.error().message;
}

TEST_F(LlmClientMock, BadModelRefComesThroughOnDone) {
  LlmClient client(make_config());
  auto r = client.chat_sync("nosuch:model", ask("hi"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "config");
  EXPECT_NE(r.error().message.find("unknown provider 'nosuch'"), std::string::npos);
}

TEST_F(LlmClientMock, EmbeddingsInEachDialectThatHasThem) {
  LlmClient client(make_config());
  for (std::string provider : {"openai", "ollama", "gemini"}) {
    SCOPED_TRACE(provider);
    llm::EmbedRequest req;
    req.inputs = {"alpha", "beta"};
    auto r = client.embed_sync(provider + ":embedder", req);
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->vectors.size(), 2u);
    EXPECT_FALSE(r->vectors[0].empty());
    EXPECT_NE(r->vectors[0], r->vectors[1]);
    EXPECT_GE(r->usage.input_tokens, 1);
  }
  auto r = client.embed_sync("anthropic:embedder", llm::EmbedRequest{"", {"x"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no embeddings"), std::string::npos) << r.error().message;
}

TEST_F(LlmClientMock, ManyConcurrentChatsAllComplete) {
  LlmClient client(make_config());
  constexpr int kN = 40;
  std::atomic<int> ok{0}, done{0};
  std::promise<void> all;
  for (int i = 0; i < kN; ++i) {
    ChatCallbacks cb;
    cb.on_done = [&](Result<llm::ChatResponse> r) {
      if (r) ++ok;
      if (++done == kN) all.set_value();
    };
    client.chat(i % 2 ? "openai:m" : "ollama:m", ask("hi " + std::to_string(i)), cb);
  }
  ASSERT_EQ(all.get_future().wait_for(60s), std::future_status::ready);
  EXPECT_EQ(ok.load(), kN);
}

TEST_F(LlmClientMock, ProbeOllama) {
  EXPECT_TRUE(LlmClient::probe_ollama(base_, 2000));
  EXPECT_TRUE(LlmClient::probe_ollama(base_ + "/v1/", 2000));
  server_->stop();
  EXPECT_FALSE(LlmClient::probe_ollama(base_, 500));
  EXPECT_FALSE(LlmClient::probe_ollama("", 500));
}

}  // namespace
}  // namespace kaisha::provider
