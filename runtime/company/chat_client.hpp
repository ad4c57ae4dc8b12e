// ChatClient is how the model-client actor reaches models. The real one is
// provider::LlmClient (libcurl, one curl_multi loop); benchmarks and tests can
// plug an in-process stub with the same contract.
//
// Contract: chat() never blocks the caller; `on_done` is called exactly once,
// from any thread (the caller posts the result back to its actor).
#pragma once

#include <functional>
#include <string>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::company {

struct ChatHandlers {
  std::function<void(Result<llm::ChatResponse>)> on_done;
  // Optional: a retry is about to happen (attempt number, delay, reason).
  std::function<void(int attempt, int64_t delay_ms, const std::string& reason)> on_retry;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // Ok when `model_ref` names a configured, reachable-in-principle model.
  virtual Status check_model(const std::string& model_ref) const = 0;
  virtual void chat(const std::string& model_ref, llm::ChatRequest request, ChatHandlers handlers) = 0;
};

}  // namespace kaisha::company
