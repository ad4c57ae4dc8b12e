#include "runtime/memory/configured_embedder.hpp"

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/memory/provider_embedder.hpp"
#include "runtime/provider/llm_client.hpp"

namespace kaisha::memory {

Result<std::shared_ptr<Embedder>> configured_embedder(const config::Config& c) {
  if (c.memory.embedding_model.empty())
    return std::shared_ptr<Embedder>(std::make_shared<HashedNgramEmbedder>(c.memory.embedding_dims));
  auto client = std::make_shared<provider::LlmClient>(c);
  if (Status s = client->check_model(c.memory.embedding_model); !s.ok())
    return Error{"config", "memory.embedding_model '" + c.memory.embedding_model + "': " + s.error().message};
  return std::shared_ptr<Embedder>(std::make_shared<ProviderEmbedder>(client, c.memory.embedding_model));
}

}  // namespace kaisha::memory
