#include "runtime/hiva/routing/embedding.hpp"

#include <algorithm>
#include <cmath>

namespace kaisha::hiva {

Embedding unit(Embedding v) {
  double norm2 = 0.0;
  for (float x : v) norm2 += static_cast<double>(x) * x;
  if (!std::isfinite(norm2)) return {};
  if (norm2 <= 0.0) return v;
  const double scale = 1.0 / std::sqrt(norm2);
  for (float& x : v) x = static_cast<float>(x * scale);
  return v;
}

double cosine(const Embedding& a, const Embedding& b) {
  if (a.size() != b.size() || a.empty()) return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  // float rounding can put the cosine of two unit vectors a hair outside.
  return std::clamp(sum, -1.0, 1.0);
}

}  // namespace kaisha::hiva
