// LlmClient: the one way kaisha calls a language model. Given a model ref
// ("ollama:llama3.2", "openai:gpt-4o-mini") it finds the provider in the
// configuration, speaks its dialect over the shared HttpClient, retries what
// is worth retrying, caps concurrency per provider and reports token usage.
//
// Threading: chat() and embed() may be called from any thread and never block;
// at most max_concurrency requests per provider are in flight, the rest wait
// in FIFO order inside the client. Every callback runs on the HttpClient's
// loop thread and must not block: an actor posts the result back to itself.
//
// Retries: on HTTP 408/409/429/5xx, connection failures, timeouts, a stream
// cut off before its end and a body that does not parse, up to
// RetryConfig::max_attempts attempts in total, waiting an exponential backoff
// with full jitter (capped at max_delay_ms) or the server's Retry-After (capped at
// max_retry_after_ms).
// Other 4xx answers fail at once.
//
// Usage: taken from the provider's usage fields. When the response carries
// none, it is estimated at ~4 characters per token (ceil(chars / 4), at least
// 1) over all message texts, tool calls and tool specs of the request (input)
// and the reply's text and tool calls (output), and usage.estimated is true.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::provider {

// Sent before each retry, e.g. for the CLI to print
// "openai:gpt-4o-mini: HTTP 429 ..., retrying in 1.0 s (attempt 2 of 4)".
struct RetryNotice {
  std::string model_ref;
  int next_attempt = 0;  // 2 for the first retry
  int max_attempts = 0;
  std::chrono::milliseconds delay{0};
  std::string reason;  // why the previous attempt failed
  // True when the failed attempt had already passed text to on_text: the
  // next attempt streams its answer from the beginning again.
  bool restarts_stream = false;
};

struct ChatCallbacks {
  // Optional; streaming requests only. Each text delta as it arrives.
  std::function<void(std::string_view)> on_text;
  // Called exactly once: the response, or an Error whose message names the
  // model ref, URL, attempts and last cause. Error codes: "config" (bad model
  // ref or provider), "http" (an HTTP error status), "timeout", "connect",
  // "llm" (unparseable or cut-off response), "cancelled" (client shut down).
  std::function<void(Result<llm::ChatResponse>)> on_done;
  // Optional. Before each retry.
  std::function<void(const RetryNotice&)> on_retry;
};

using EmbedCallback = std::function<void(Result<llm::EmbedResponse>)>;

class LlmClient {
 public:
  // Uses `http`, which must outlive every request in flight. Destroying the
  // HttpClient completes those requests with "cancelled".
  LlmClient(config::Config cfg, http::HttpClient& http);
  // Owns a private HttpClient; the destructor cancels requests in flight
  // (their on_done reports "cancelled").
  explicit LlmClient(config::Config cfg);
  ~LlmClient();

  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;

  // Everything that can be checked before a request: the ref parses, its
  // provider is configured, the dialect is known, a base_url and (where the
  // endpoint needs one) an API key are set. Errors have code "config".
  Status check_model(std::string_view model_ref) const;

  // One chat completion. `req.model` is set from the ref; `req.stream`
  // selects a streamed response (deltas to cb.on_text). A bad model ref is
  // reported through cb.on_done like any other failure.
  void chat(std::string model_ref, llm::ChatRequest req, ChatCallbacks cb);

  // Embeddings for `req.inputs`; `req.model` is set from the ref. Retried as
  // chat() is. Fails with code "config" for dialects without embeddings.
  void embed(std::string model_ref, llm::EmbedRequest req, EmbedCallback done);

  // Blocking conveniences for tests and the CLI — never for actors. Calling
  // them from an HttpClient callback would deadlock, so there they fail.
  Result<llm::ChatResponse> chat_sync(std::string model_ref, llm::ChatRequest req,
                                      std::function<void(std::string_view)> on_text = {},
                                      std::function<void(const RetryNotice&)> on_retry = {});
  Result<llm::EmbedResponse> embed_sync(std::string model_ref, llm::EmbedRequest req);

  // Requests started and not yet finished, per provider name (diagnostics).
  std::map<std::string, int> in_flight() const;

  const config::Config& config() const;

  // Whether an Ollama server answers GET <base_url>/api/tags with 2xx within
  // `timeout_ms`. Synchronous: for start-up decisions before actors exist.
  static bool probe_ollama(const std::string& base_url, int timeout_ms);

  struct Shared;  // state shared with requests in flight

 private:
  std::unique_ptr<http::HttpClient> owned_http_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace kaisha::provider
