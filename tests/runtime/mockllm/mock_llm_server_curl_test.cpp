// The mock LLM server through kaisha's own libcurl HttpClient: concurrent
// requests, kept-alive connections reused for a second wave.
#include <future>

#include <gtest/gtest.h>

#include "runtime/http/http_client.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"

namespace kaisha::mockllm {
namespace {

TEST(MockLlmServerCurl, ConcurrentKeptAliveRequestsAllSucceed) {
  auto script = parse_mock_script("rules:\n  - reply: {text: \"echo: {{last_user}}\", latency_ms: 50}\n");
  ASSERT_TRUE(script.ok()) << script.error().message;
  MockLlmServer server(*script);
  auto port = server.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message;
  http::HttpClient client;
  constexpr int kCalls = 100;
  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::promise<http::HttpResult>> results(kCalls);
    for (int i = 0; i < kCalls; ++i) {
      http::HttpRequestSpec req;
      req.method = "POST";
      req.url = "http://127.0.0.1:" + std::to_string(*port) + "/v1/chat/completions";
      req.headers = {{"Content-Type", "application/json"}};
      req.body = json{{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "n" + std::to_string(i)}}}}}.dump();
      http::HttpCallbacks cb;
      cb.on_done = [&results, i](http::HttpResult r) { results[static_cast<size_t>(i)].set_value(std::move(r)); };
      client.submit(std::move(req), {}, std::move(cb));
    }
    for (int i = 0; i < kCalls; ++i) {
      http::HttpResult r = results[static_cast<size_t>(i)].get_future().get();
      ASSERT_TRUE(r.ok()) << "wave " << wave << " call " << i << ": " << r.status << " " << r.error_message << " "
                          << r.body;
      EXPECT_NE(r.body.find("echo: n" + std::to_string(i)), std::string::npos) << r.body;
    }
  }
  EXPECT_EQ(server.request_log().size(), 2u * kCalls);
}

}  // namespace
}  // namespace kaisha::mockllm
