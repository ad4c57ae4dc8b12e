// A seeded sample of a suite's items (`kaisha eval --limit N --seed S`):
// the same seed picks the same items on every machine and version, as the
// papers' "seed 42" samples do, because the draws come from runtime/random's
// own engine and samplers, never from a standard library's distributions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kaisha::suite {

// `n` distinct indices of [0, total), in ascending order (all of them when
// n >= total). A partial Fisher-Yates shuffle on the stream ("suite-sample",
// seed).
std::vector<size_t> sample_indices(size_t total, size_t n, uint64_t seed);

}  // namespace kaisha::suite
