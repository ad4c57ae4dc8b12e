#include "runtime/core/fnv1a.hpp"

namespace kaisha {

namespace {
constexpr uint64_t kPrime = 0x100000001b3ull;
}  // namespace

uint64_t fnv1a_64(std::string_view bytes) { return fnv1a_64(kFnv1aOffsetBasis, bytes); }

uint64_t fnv1a_64(uint64_t state, std::string_view bytes) {
  for (char c : bytes) {
    state ^= static_cast<unsigned char>(c);
    state *= kPrime;
  }
  return state;
}

}  // namespace kaisha
