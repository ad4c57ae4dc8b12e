#include "runtime/mockllm/mock_embedding.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::mockllm {

std::vector<float> mock_embedding(std::string_view text) {
  std::vector<float> v(kMockEmbeddingDims, 0.0f);
  const std::string t = " " + ascii_lower(text) + " ";
  for (size_t i = 0; i + 3 <= t.size(); ++i) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (size_t k = i; k < i + 3; ++k) {
      h ^= static_cast<unsigned char>(t[k]);
      h *= 1099511628211ull;
    }
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
