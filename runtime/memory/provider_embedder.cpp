#include "runtime/memory/provider_embedder.hpp"

namespace kaisha::memory {

ProviderEmbedder::ProviderEmbedder(std::shared_ptr<provider::LlmClient> client, std::string model_ref)
    : client_(std::move(client)), model_ref_(std::move(model_ref)) {}

void ProviderEmbedder::embed(std::vector<std::string> texts, EmbedDone done) {
  if (texts.empty()) return done(std::vector<Vector>{});
  const size_t n = texts.size();
  llm::EmbedRequest req;
  req.inputs = std::move(texts);
  const std::string ref = model_ref_;
  client_->embed(ref, std::move(req), [done = std::move(done), n, ref](Result<llm::EmbedResponse> r) {
    if (!r.ok()) return done(Error{r.error().code, "embedding model " + ref + ": " + r.error().message});
    std::vector<Vector> vectors = std::move(r->vectors);
    if (vectors.size() != n)
      return done(Error{"llm", "embedding model " + ref + " returned " + std::to_string(vectors.size()) +
                                   " vectors for " + std::to_string(n) + " texts"});
    for (Vector& v : vectors) {
      if (v.empty() || v.size() != vectors.front().size())
        return done(Error{"llm", "embedding model " + ref + " returned vectors of different or zero size"});
      normalize(v);
    }
    done(std::move(vectors));
  });
}

}  // namespace kaisha::memory
