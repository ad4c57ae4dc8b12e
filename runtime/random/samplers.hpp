// The project's samplers, each drawing from a RandomStream. They are written
// here, not taken from std distributions, whose algorithms differ between
// standard libraries: with these, a stream gives the same numbers everywhere.
// (Normal, Gamma and Beta use std::log, std::sqrt, std::exp and std::pow;
// sqrt is exact, the others may differ in the last bit between math
// libraries, never between runs on one machine.)
//
// Invalid parameters throw std::invalid_argument saying which parameter was
// wrong and its value; nothing is drawn then.
#pragma once

#include <cstdint>

#include "runtime/random/random_stream.hpp"

namespace kaisha::random {

// Uniform in [0, 1) on the grid of multiples of 2^-53: the top 53 bits of
// one 64-bit draw, times 2^-53.
double uniform01(RandomStream& stream);

// Uniform integer in [0, n), without modulo bias: 64-bit draws below
// 2^64 mod n are rejected (fewer than half of them, whatever n), the first
// accepted one is taken mod n. Throws for n == 0.
uint64_t uniform_below(RandomStream& stream, uint64_t n);

// Standard normal (mean 0, variance 1) by Marsaglia's polar method: pairs
// u, v = 2 * uniform01 - 1 until 0 < s = u^2 + v^2 < 1, then
// u * sqrt(-2 ln(s) / s). The method's second value, v * sqrt(...), is
// discarded rather than kept for the next call, so a stream holds no state
// besides its engine.
double standard_normal(RandomStream& stream);

// Gamma with shape k > 0 and scale theta > 0 (mean k * theta, variance
// k * theta^2), by Marsaglia and Tsang (2000). For k < 1 it draws
// Gamma(k + 1) and multiplies by U^(1/k), U = 1 - uniform01 in (0, 1].
// Throws unless both parameters are finite and > 0.
double gamma(RandomStream& stream, double shape, double scale);

// Beta(alpha, beta) as X / (X + Y) with X ~ Gamma(alpha, 1) and
// Y ~ Gamma(beta, 1), X drawn first; computed from the logarithms of X and Y
// so that small shapes, whose draws underflow to 0, still give a number in
// [0, 1] rather than 0/0. Throws unless both parameters are finite and > 0.
double beta(RandomStream& stream, double alpha, double beta);

}  // namespace kaisha::random
