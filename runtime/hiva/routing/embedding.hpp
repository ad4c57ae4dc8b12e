// Text embeddings as KABB uses them (hiva.md §6.2): an embedder is injected
// as a plain function, so the routing part needs no model, provider or
// database; the driver passes whatever embedder the company has (e.g.
// memory::HashedNgramEmbedder::embed_one). Vectors are scaled to unit
// length here, whatever the embedder returns, so cosine similarity is a dot
// product.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace kaisha::hiva {

using Embedding = std::vector<float>;
using Embed = std::function<Embedding(const std::string&)>;

// `v` scaled to unit length; a zero (or empty) vector stays as it is, and
// one holding a NaN or an infinity becomes empty.
Embedding unit(Embedding v);

// The dot product, which is the cosine of unit vectors (clamped to
// [-1, 1]); 0 when the sizes differ or either is empty (no evidence of
// similarity).
double cosine(const Embedding& a, const Embedding& b);

}  // namespace kaisha::hiva
