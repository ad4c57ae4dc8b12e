// ProviderEmbedder: embeddings from a configured provider through LlmClient —
// Ollama's /api/embed (e.g. `ollama:all-minilm`, all-MiniLM-L6-v2, the
// paper's model) or an OpenAI-compatible /v1/embeddings. Retries, timeouts and
// per-provider concurrency are LlmClient's. Vectors are scaled to unit length;
// an answer with the wrong number of vectors, or vectors of different sizes,
// is an error naming the model.
#pragma once

#include <memory>

#include "runtime/memory/embedder.hpp"
#include "runtime/provider/llm_client.hpp"

namespace kaisha::memory {

class ProviderEmbedder : public Embedder {
 public:
  // `client` must outlive every call in flight.
  ProviderEmbedder(std::shared_ptr<provider::LlmClient> client, std::string model_ref);
  std::string model_id() const override { return model_ref_; }
  void embed(std::vector<std::string> texts, EmbedDone done) override;

 private:
  std::shared_ptr<provider::LlmClient> client_;
  std::string model_ref_;
};

}  // namespace kaisha::memory
