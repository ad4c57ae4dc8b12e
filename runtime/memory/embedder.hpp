// Embedder: turns texts into vectors for semantic memory search. Every vector
// an Embedder returns has unit length, so cosine similarity is a dot product.
//
// embed() must not block the caller; `done` is called exactly once, from any
// thread (a provider's HTTP loop, or the caller's own thread for the built-in
// embedder). embed_blocking() waits for it and is for worker threads only —
// never an actor or an HttpClient callback.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::memory {

using Vector = std::vector<float>;
using EmbedDone = std::function<void(Result<std::vector<Vector>>)>;

class Embedder {
 public:
  virtual ~Embedder() = default;
  // Names the model; cached vectors are keyed by it, so changing the model
  // re-embeds the memories ("builtin:hashed-ngram-384", "ollama:all-minilm").
  virtual std::string model_id() const = 0;
  // One vector per text, in order.
  virtual void embed(std::vector<std::string> texts, EmbedDone done) = 0;
  // True when embed() calls `done` before it returns, without waiting for
  // anything (the built-in embedder): embed_blocking() is then safe anywhere.
  virtual bool answers_at_once() const { return false; }
};

Result<std::vector<Vector>> embed_blocking(Embedder& embedder, std::vector<std::string> texts);

// Scales `v` to unit length (a zero vector stays zero).
void normalize(Vector& v);
// Dot product; the cosine similarity of unit vectors. 0 when sizes differ.
double dot(const Vector& a, const Vector& b);

}  // namespace kaisha::memory
