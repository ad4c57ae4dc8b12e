// MockLlmServer: a real HTTP server that answers LLM API calls from a
// MockScript, speaking all four dialects at once on one port:
//
//   POST /v1/chat/completions, /v1/embeddings, GET /v1/models      OpenAI
//   POST /api/chat, /api/embed, GET /api/tags                       Ollama
//   POST /v1beta/models/{model}:generateContent | :streamGenerateContent
//        | :embedContent | :batchEmbedContents                      Gemini
//   POST /v1/messages                                               Anthropic
//   GET  /_mock/requests   the request log (JSON array)
//   POST /_mock/reset      clears the log and the rules' `times` counters
//
// Streaming requests are answered with chunked transfer in the dialect's own
// framing. A request that matches no rule (and the script has no
// default_reply) gets HTTP 500 whose error body starts "mock-llm: no rule
// matched" and names the model and the last message.
//
// Concurrency: one thread serves every connection (EventHttpServer: epoll,
// keep-alive). A request waiting out its latency_ms or a hang fault is a
// timer, not a sleeping thread, so any number of slow requests proceed in
// parallel. Responses are not compressed.
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/mockllm/mock_script.hpp"

namespace kaisha::mockllm {

struct MockServerOptions {
  int hang_max_ms = 60'000;  // a "hang" fault answers 504 after this long at the latest
};

class MockLlmServer {
 public:
  explicit MockLlmServer(MockScript script, MockServerOptions options = {});
  ~MockLlmServer();  // stops the server
  MockLlmServer(const MockLlmServer&) = delete;
  MockLlmServer& operator=(const MockLlmServer&) = delete;

  // Binds host:port (port 0: an ephemeral port) and serves on a background
  // thread. Returns the bound port. Call at most once per object.
  Result<int> start(const std::string& host, int port);

  // Stops serving: closes the listening socket and every connection
  // (requests still waiting out a latency or a hang get no answer) and joins
  // the server's thread. Idempotent.
  void stop();

  // The bound port; 0 before start().
  int port() const;

  // One entry per request so far, oldest first: {dialect, kind ("chat" or
  // "embed"), path, model, stream, rule, last_message, status, received_us,
  // and answered_us once answered (steady clock, µs)}; a chat entry also has
  // "messages": [{role, content}] (each content cut at 200 bytes), an embed
  // entry "inputs": [text] (each cut at 200 bytes).
  std::vector<json> request_log() const;

  // Clears the request log and every rule's `times` counter.
  void reset();

  // For the CLI: start(), then block until SIGINT/SIGTERM arrives or stop()
  // is called from another thread, then stop().
  Status serve(const std::string& host, int port);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::mockllm
