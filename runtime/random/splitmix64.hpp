// SplitMix64 (Steele, Lea and Flood; the version Vigna publishes with
// xoshiro): a 64-bit generator whose outputs are well mixed even from
// similar seeds. The project uses it to turn one 64-bit seed into the
// state of its engine, never as the engine itself.
#pragma once

#include <cstdint>

namespace kaisha::random {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  // Adds 0x9e3779b97f4a7c15 to the state and returns it mixed. Every seed,
  // 0 included, is valid; distinct seeds give distinct first outputs.
  uint64_t next();

 private:
  uint64_t state_;
};

}  // namespace kaisha::random
