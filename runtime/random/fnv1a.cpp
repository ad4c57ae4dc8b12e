#include "runtime/random/fnv1a.hpp"

namespace kaisha::random {

namespace {
constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
constexpr uint64_t kPrime = 0x100000001b3ull;
}  // namespace

uint64_t fnv1a_64(std::string_view bytes) { return fnv1a_64(kOffsetBasis, bytes); }

uint64_t fnv1a_64(uint64_t state, std::string_view bytes) {
  for (char c : bytes) {
    state ^= static_cast<unsigned char>(c);
    state *= kPrime;
  }
  return state;
}

}  // namespace kaisha::random
