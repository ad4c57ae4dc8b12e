// max_concurrency, observed at the server: a small OpenAI-compatible server
// counts requests in flight while each takes a while to answer.
#include <atomic>
#include <future>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "runtime/provider/llm_client.hpp"
#include "tests/runtime/http/test_server.hpp"

namespace kaisha::provider {
namespace {

using namespace std::chrono_literals;

TEST(ConcurrencyCap, InFlightAtServerNeverExceedsCap) {
  http::testing::TestServer s;
  std::atomic<int> now{0}, peak{0}, total{0};
  s.server.Post("/v1/chat/completions", [&](const httplib::Request&, httplib::Response& res) {
    int n = ++now;
    int p = peak.load();
    while (n > p && !peak.compare_exchange_weak(p, n)) {
    }
    ++total;
    std::this_thread::sleep_for(60ms);
    --now;
    res.set_content(R"({"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,
      "message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})",
                    "application/json");
  });
  s.start();

  config::Config cfg;
  config::ProviderConfig p;
  p.name = "local";
  p.dialect = "openai";
  p.base_url = s.url("/v1");
  p.max_concurrency = 3;
  cfg.providers["local"] = p;
  {
    LlmClient client(cfg);
    constexpr int kN = 15;
    std::atomic<int> ok{0}, done{0}, max_client_side{0};
    std::promise<void> all;
    for (int i = 0; i < kN; ++i) {
      ChatCallbacks cb;
      cb.on_done = [&](Result<llm::ChatResponse> r) {
        if (r) ++ok;
        if (++done == kN) all.set_value();
      };
      llm::ChatRequest req;
      req.messages.push_back({llm::Role::user, "hi", {}, "", ""});
      client.chat("local:m", req, cb);  // returns at once even beyond the cap
      max_client_side = std::max(max_client_side.load(), client.in_flight().at("local"));
    }
    ASSERT_EQ(all.get_future().wait_for(30s), std::future_status::ready);
    EXPECT_EQ(ok.load(), kN);
    EXPECT_EQ(total.load(), kN);
    EXPECT_LE(peak.load(), 3);
    EXPECT_GE(peak.load(), 2) << "requests should still overlap up to the cap";
    EXPECT_LE(max_client_side.load(), 3);
    EXPECT_EQ(client.in_flight().at("local"), 0);
  }
}

}  // namespace
}  // namespace kaisha::provider
