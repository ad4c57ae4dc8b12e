// xoshiro256** (Blackman and Vigna, 2018): the engine under every random
// stream of the project. Written out here rather than taken from <random>
// so that its bit stream is fixed by this file alone: the same seed gives
// the same 64-bit outputs with any compiler and standard library.
#pragma once

#include <array>
#include <cstdint>

namespace kaisha::random {

class Xoshiro256StarStar {
 public:
  // The state as given. Throws std::invalid_argument if all four words are
  // zero (the one state the generator never leaves).
  explicit Xoshiro256StarStar(const std::array<uint64_t, 4>& state);

  // The state filled with four outputs of SplitMix64(seed), as the authors
  // recommend; never all zero.
  static Xoshiro256StarStar from_seed(uint64_t seed);

  uint64_t next();

 private:
  std::array<uint64_t, 4> s_;
};

}  // namespace kaisha::random
