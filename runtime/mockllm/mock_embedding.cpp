#include "runtime/mockllm/mock_embedding.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/fnv1a.hpp"

namespace kaisha::mockllm {

std::vector<float> mock_embedding(std::string_view text) {
  std::vector<float> v(kMockEmbeddingDims, 0.0f);
  const std::string t = " " + ascii_lower(text) + " ";
  for (size_t i = 0; i + 3 <= t.size(); ++i) {
    // The memory embedder's basis (hashed_ngram_embedder.cpp), not FNV's.
    const uint64_t h = fnv1a_64(1469598103934665603ull, std::string_view(t).substr(i, 3));
    v[h % kMockEmbeddingDims] += 1.0f;
  }
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm == 0) {
    v[0] = 1.0f;
    return v;
  }
  float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& x : v) x *= inv;
  return v;
}

}  // namespace kaisha::mockllm
