// HashedNgramEmbedder: the built-in, offline embedder used when no embedding
// model is configured. Each word of the lower-cased text contributes itself
// and its character trigrams (with word-boundary padding, " veg", "tar", ...)
// to a fixed number of buckets chosen by a 64-bit FNV-1a hash, with a hashed
// sign so that collisions cancel out on average; the result is scaled to unit
// length. Deterministic: the same text gives the same vector in every process.
//
// What it costs in quality: it measures shared spelling, not meaning. "The
// user is vegetarian" and "I don't eat meat" score near zero, while texts
// that share words or word stems ("vegetarian" / "vegetarians") score high.
// all-MiniLM-L6-v2 (the paper's model, `ollama:all-minilm`) finds both.
#pragma once

#include "runtime/memory/embedder.hpp"

namespace kaisha::memory {

class HashedNgramEmbedder : public Embedder {
 public:
  explicit HashedNgramEmbedder(int dims = 384);
  std::string model_id() const override;
  // Calls `done` before returning.
  void embed(std::vector<std::string> texts, EmbedDone done) override;
  bool answers_at_once() const override { return true; }

  Vector embed_one(const std::string& text) const;
  int dims() const { return dims_; }

 private:
  int dims_;
};

}  // namespace kaisha::memory
