#include "runtime/random/samplers.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kaisha::random {

namespace {

// Throws unless `value` is a finite number > 0 (NaN fails the comparison).
void require_positive(const char* sampler, const char* parameter, double value) {
  if (value > 0 && std::isfinite(value)) return;
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  throw std::invalid_argument(std::string(sampler) + ": " + parameter + " must be a finite number > 0, got " + text);
}

// Marsaglia and Tsang's method for shape >= 1, scale 1. Always > 0.
double gamma_at_least_one(RandomStream& stream, double shape) {
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(stream);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform01(stream);
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;  // the squeeze spares a log
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// The logarithm of a Gamma(shape, 1) draw, with the boost for shape < 1
// kept as a logarithm: ln(G(shape + 1)) + ln(U) / shape.
double log_standard_gamma(RandomStream& stream, double shape) {
  if (shape >= 1) return std::log(gamma_at_least_one(stream, shape));
  const double g = gamma_at_least_one(stream, shape + 1);
  return std::log(g) + std::log(1.0 - uniform01(stream)) / shape;
}

}  // namespace

double uniform01(RandomStream& stream) { return static_cast<double>(stream.next_u64() >> 11) * 0x1.0p-53; }

uint64_t uniform_below(RandomStream& stream, uint64_t n) {
  if (n == 0) throw std::invalid_argument("uniform_below: n must be > 0, got 0 (the range [0, n) is empty)");
  // 2^64 mod n, computed in 64 bits as (2^64 - n) mod n.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = stream.next_u64();
    if (r >= threshold) return r % n;
  }
}

double standard_normal(RandomStream& stream) {
  for (;;) {
    const double u = 2.0 * uniform01(stream) - 1.0;
    const double v = 2.0 * uniform01(stream) - 1.0;
    const double s = u * u + v * v;
    if (s > 0 && s < 1) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double gamma(RandomStream& stream, double shape, double scale) {
  require_positive("gamma", "shape", shape);
  require_positive("gamma", "scale", scale);
  if (shape >= 1) return scale * gamma_at_least_one(stream, shape);
  const double g = gamma_at_least_one(stream, shape + 1);
  return scale * g * std::pow(1.0 - uniform01(stream), 1.0 / shape);
}

double beta(RandomStream& stream, double alpha, double beta) {
  require_positive("beta", "alpha", alpha);
  require_positive("beta", "beta", beta);
  const double log_x = log_standard_gamma(stream, alpha);
  const double log_y = log_standard_gamma(stream, beta);
  // X / (X + Y) = 1 / (1 + Y / X); exp overflowing to infinity gives 0.
  return 1.0 / (1.0 + std::exp(log_y - log_x));
}

}  // namespace kaisha::random
