// Deterministic stand-in embeddings for the mock LLM server: hashed character
// trigrams of the lower-cased text, 384 dimensions, unit length. Texts that
// share many trigrams get a high cosine similarity, unrelated ones a low one,
// so memory search behaves plausibly in tests without a model.
#pragma once

#include <string_view>
#include <vector>

namespace kaisha::mockllm {

constexpr int kMockEmbeddingDims = 384;

// Always kMockEmbeddingDims values with Euclidean norm 1 (empty text too).
std::vector<float> mock_embedding(std::string_view text);

}  // namespace kaisha::mockllm
