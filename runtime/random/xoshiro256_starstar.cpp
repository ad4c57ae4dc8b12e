#include "runtime/random/xoshiro256_starstar.hpp"

#include <stdexcept>

#include "runtime/random/splitmix64.hpp"

namespace kaisha::random {

namespace {
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Xoshiro256StarStar::Xoshiro256StarStar(const std::array<uint64_t, 4>& state) : s_(state) {
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) throw std::invalid_argument("xoshiro256**: the state must not be all zero");
}

Xoshiro256StarStar Xoshiro256StarStar::from_seed(uint64_t seed) {
  SplitMix64 mix(seed);
  std::array<uint64_t, 4> state;
  for (uint64_t& word : state) word = mix.next();
  // Four consecutive SplitMix64 outputs come from four distinct states of a
  // bijection, so at most one of them can be zero.
  return Xoshiro256StarStar(state);
}

uint64_t Xoshiro256StarStar::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

}  // namespace kaisha::random
