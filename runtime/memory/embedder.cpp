#include "runtime/memory/embedder.hpp"

#include <cmath>
#include <future>

namespace kaisha::memory {

Result<std::vector<Vector>> embed_blocking(Embedder& embedder, std::vector<std::string> texts) {
  auto promise = std::make_shared<std::promise<Result<std::vector<Vector>>>>();
  auto future = promise->get_future();
  embedder.embed(std::move(texts), [promise](Result<std::vector<Vector>> r) { promise->set_value(std::move(r)); });
  return future.get();
}

void normalize(Vector& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  if (sum <= 0) return;
  const float inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : v) x *= inv;
}

double dot(const Vector& a, const Vector& b) {
  if (a.size() != b.size()) return 0;
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

}  // namespace kaisha::memory
